// Document handling below the job pipeline: safe download of fileUrl attachments, format
// sniffing, page counts and page selections. Rendering (pdf, images, text, cover) comes later.

export * from './address-policy.js';
export * from './fetch.js';
export * from './page-count.js';
export * from './page-ranges.js';
export * from './sniff.js';
