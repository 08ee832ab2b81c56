// Page selection entries of an attachment. The logic lives in documents/page-ranges.ts, because
// the job pipeline (below api/) applies the same selection to the fetched document.

export * from '../../documents/page-ranges.js';
