// Outgoing webhooks: signing, target checks (SSRF) and the delivery worker. Event bodies are
// built in store/fax-object.ts so that jobs/ can insert them with the job's transition.
export { signBody, verifySignature, SIGNATURE_HEADER } from './sign.js';
export { checkWebhookUrl, guardedLookup, isNonPublicAddress, WebhookTargetError, type WebhookUrlPolicy } from './target.js';
export { postWebhook, type PostOptions, type PostResult } from './post.js';
export { WebhookWorker, type WebhookWorkerOptions } from './worker.js';
