// The search box of the faxes list as a store filter (JobListFilter.query): one rule, read by
// both engines. A term matches a job whose subject contains it (case-insensitive, ASCII), whose
// to/from number contains its digits (when it reads like a number), or whose id it is.
interface JobSearch {
  /** Lower-cased text to find in the cover subject. */
  text: string;
  /** Digits to find in to_number/from_number; null when the term is not number-like. */
  digits: string | null;
  /** The job id the term names (digits only, optionally "#123"); null otherwise. */
  jobId: number | null;
}

export const MAX_SEARCH_LENGTH = 100;

/** The parts of a search term; null when it is empty (no filter). */
export function jobSearch(query: string | undefined): JobSearch | null {
  const text = (query ?? '').trim().slice(0, MAX_SEARCH_LENGTH).toLowerCase();
  if (text === '') return null;
  const numberLike = /^[+(\d][\d\s().-]*$/.test(text);
  const digitsOnly = text.replace(/\D/g, '');
  const idText = /^#?\d{1,15}$/.test(text) ? text.replace('#', '') : null;
  return {
    text,
    digits: numberLike && digitsOnly.length >= 3 ? digitsOnly : null,
    jobId: idText !== null ? Number(idText) : null,
  };
}
