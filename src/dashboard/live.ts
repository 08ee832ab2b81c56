// The dashboard's one script (served at /dashboard/live.js, same origin, so CSP allows it with
// script-src/connect-src 'self'): follows faxes that are still sending by polling
// /dashboard/faxes/live.json and updating their status and page count. Bounded: it stops when
// none is sending any more, after 30 minutes, or on any answer that is not the expected JSON.
// A detail page marked data-live-reload reloads once its fax finished (pages, attempts appear).
export const LIVE_POLL_MS = 1500;
export const LIVE_MAX_MS = 30 * 60_000;

export const LIVE_JS = `'use strict';
(function () {
  var POLL_MS = ${LIVE_POLL_MS}, MAX_MS = ${LIVE_MAX_MS}, started = Date.now();
  function sending() {
    return Array.prototype.slice.call(document.querySelectorAll('[data-live-status="sending"]'));
  }
  function update(el, job) {
    var status = el.querySelector('[data-live="status"]');
    if (status) {
      status.textContent = job.status + (job.stage ? ' (' + job.stage + ')' : '');
      status.className = 'status s-' + job.status;
    }
    var short = el.querySelector('[data-live="pages-short"]');
    if (short) short.textContent = job.transferredPages + '/' + job.totalPages;
    var long = el.querySelector('[data-live="pages-long"]');
    if (long) long.textContent = job.transferredPages + ' of ' + job.totalPages + ' confirmed';
    if (job.status !== 'sending') {
      el.setAttribute('data-live-status', job.status);
      // The page again, without a one-time notice (?done=sent) in its address.
      if (el.hasAttribute('data-live-reload')) location.replace(location.pathname);
    }
  }
  function tick() {
    var els = sending();
    if (els.length === 0 || Date.now() - started > MAX_MS) return;
    var ids = els.map(function (el) { return el.getAttribute('data-live-job'); }).slice(0, 50);
    fetch('/dashboard/faxes/live.json?ids=' + ids.join(','), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (res) {
        if (!res.ok || (res.headers.get('content-type') || '').indexOf('application/json') !== 0) throw new Error('stop');
        return res.json();
      })
      .then(function (body) {
        body.jobs.forEach(function (job) {
          els.forEach(function (el) { if (el.getAttribute('data-live-job') === String(job.jobId)) update(el, job); });
        });
        if (sending().length === 0) {
          Array.prototype.forEach.call(document.querySelectorAll('.live-hint'), function (hint) { hint.hidden = true; });
          return;
        }
        setTimeout(tick, POLL_MS);
      })
      .catch(function () { /* signed out, offline or server trouble: the refresh link remains */ });
  }
  if (sending().length > 0) setTimeout(tick, POLL_MS);
})();
`;
