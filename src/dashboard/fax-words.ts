// A fax's state in words for people (docs/api.md, codes): the badge of the list and the
// detail page, and what live.json sends to live.js, so the page and its script say the same thing.
// While a fax is sending its stored `message` may be stale (the last stage written); the words
// come from the stage then, and from the result code and message once it is finished.
import type { JobRecord } from '../store/index.js';

export type Tone = 'ok' | 'bad' | 'muted' | 'busy' | 'wait';

interface FaxWords {
  /** The badge: "Delivered", "Failed", "Scheduled", "Dialing"... */
  label: string;
  tone: Tone;
  /** One line under the badge: why it failed, when it is scheduled, the pages confirmed. */
  detail: string;
  /** The result code and message for the badge's tooltip ("code -3101: Line busy"). */
  code: string;
}

type Job = Pick<JobRecord, 'status' | 'stage' | 'code' | 'message' | 'direction' | 'transferredPages' | 'totalPages' | 'attempts' | 'maxAttempts'>;

const pages = (n: number) => `${n} ${n === 1 ? 'page' : 'pages'}`;

/** The words for `job`; times (scheduled, next retry) are rendered by the caller as <time>. */
export function faxWords(job: Job): FaxWords {
  const code = `code ${job.code}: ${job.message}`;
  const received = job.direction === 'received';
  switch (job.status) {
    case 'delivered':
      return { label: received ? 'Received' : 'Delivered', tone: 'ok', detail: `${pages(job.transferredPages)}${received ? ' received' : ' confirmed'}`, code };
    case 'failed':
      return { label: 'Failed', tone: 'bad', detail: job.transferredPages > 0 ? `${job.message} (${job.transferredPages} of ${pages(job.totalPages)} went through)` : job.message, code };
    case 'canceled':
      return { label: 'Canceled', tone: 'muted', detail: 'Not sent', code };
    case 'sending':
      break;
  }
  const progress = `${job.transferredPages} of ${pages(job.totalPages)}`;
  switch (job.stage) {
    case 'scheduled':
      return { label: 'Scheduled', tone: 'wait', detail: 'Waits for its send time', code };
    case 'queued':
      return job.attempts > 0
        ? { label: 'Retrying', tone: 'wait', detail: `Attempt ${job.attempts} of ${job.maxAttempts} failed: ${job.message}`, code }
        : { label: 'Queued', tone: 'busy', detail: 'Waiting for a free line', code };
    case 'preparing':
      return { label: 'Preparing', tone: 'busy', detail: 'Rendering the pages', code };
    case 'dialing':
      return { label: 'Dialing', tone: 'busy', detail: 'Calling the fax machine', code };
    case 'transmitting':
      return { label: received ? 'Receiving' : 'Sending', tone: 'busy', detail: `${progress} confirmed`, code };
    default:
      return { label: 'Sending', tone: 'busy', detail: progress, code };
  }
}
