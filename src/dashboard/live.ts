// The dashboard's one script (served at /dashboard/live.js, same origin, so CSP allows it with
// script-src/connect-src 'self'). Three small jobs, each optional (pages work without it):
// 1. times: every <time datetime> (rendered in UTC) is shown in the browser's zone; UTC stays
//    on hover (title);
// 2. forms: hidden `data-tz-offset` fields get the browser's offset (for a datetime-local input
//    named by data-for, the offset at the time entered, so a date across a DST change is right),
//    and `data-tz-hint` texts say that times are local;
// 3. live: on a page marked <body data-live>, faxes still sending are followed by polling
//    /dashboard/faxes/live.json, whose pieces of HTML (rendered by the server's own views) replace
//    the badge, the status line and the progress. Bounded: it stops when none is sending any more,
//    after 30 minutes, or on any answer that is not the expected JSON. A detail page marked
//    data-live-reload reloads once its fax finished (pages, attempts appear).
const LIVE_POLL_MS = 1500;
const LIVE_MAX_MS = 30 * 60_000;

export const LIVE_JS = `'use strict';
(function () {
  var POLL_MS = ${LIVE_POLL_MS}, MAX_MS = ${LIVE_MAX_MS}, started = Date.now();
  var fmt = {}, zone = '';
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { /* old browser: offsets only */ }
  function formatter(seconds) {
    var key = seconds ? 's' : 'm';
    if (!fmt[key]) {
      try {
        fmt[key] = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: seconds ? '2-digit' : undefined, timeZoneName: 'short' });
      } catch (e) { fmt[key] = null; }
    }
    return fmt[key];
  }
  function localizeTimes(root) {
    Array.prototype.forEach.call(root.querySelectorAll('time[datetime]'), function (el) {
      if (el.hasAttribute('data-local')) return;
      var d = new Date(el.getAttribute('datetime'));
      var f = formatter(el.hasAttribute('data-seconds'));
      if (isNaN(d.getTime()) || !f) return;
      el.textContent = f.format(d);
      el.setAttribute('data-local', '');
    });
  }
  function offsetFor(input) {
    var d = input && input.value ? new Date(input.value) : new Date();
    return String((isNaN(d.getTime()) ? new Date() : d).getTimezoneOffset());
  }
  function prepareForms() {
    Array.prototype.forEach.call(document.querySelectorAll('input[data-tz-offset]'), function (field) {
      var source = field.getAttribute('data-for') ? document.getElementById(field.getAttribute('data-for')) : null;
      field.value = offsetFor(source);
      if (field.form) field.form.addEventListener('submit', function () { field.value = offsetFor(source); });
    });
    Array.prototype.forEach.call(document.querySelectorAll('[data-tz-hint]'), function (el) {
      el.textContent = el.getAttribute('data-tz-hint') + (zone ? ' (' + zone + ')' : '');
    });
  }
  localizeTimes(document);
  prepareForms();

  if (!document.body || !document.body.hasAttribute('data-live')) return;
  function sending() {
    return Array.prototype.slice.call(document.querySelectorAll('[data-live-status="sending"]'));
  }
  function swap(el, part, markup) {
    var old = el.querySelector('[data-live="' + part + '"]');
    if (!old || typeof markup !== 'string') return;
    var box = document.createElement('div');
    box.innerHTML = markup; // markup rendered by the server's views (escaped there), same origin
    if (box.firstElementChild) old.replaceWith(box.firstElementChild);
  }
  function text(el, part, value) {
    var target = el.querySelector('[data-live="' + part + '"]');
    if (target && typeof value === 'string') target.textContent = value;
  }
  function update(el, job) {
    swap(el, 'status', job.html && job.html.status);
    swap(el, 'detail', job.html && job.html.detail);
    swap(el, 'steps', job.html && job.html.steps);
    text(el, 'pages-short', job.pagesShort);
    text(el, 'pages-long', job.pagesLong);
    localizeTimes(el);
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
