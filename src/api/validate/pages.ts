// Page selection entries of an attachment. The logic lives in documents/page-ranges.ts, because
// the job pipeline (below api/) applies the same selection to the fetched document.

export { formatPageRange, parsePageSelection, selectPages, MAX_PAGE_ENTRIES, MAX_PAGE_NUMBER, MAX_SELECTED_PAGES, type PageRange } from '../../documents/index.js';
