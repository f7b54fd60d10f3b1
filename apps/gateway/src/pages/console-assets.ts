import { PALETTE_CSS } from '@app/contracts';

/**
 * The pages' script and stylesheet, served from /assets/ (the Content-Security-Policy allows
 * scripts and styles from the service's own origin only, none inline). Plain ES2017.
 */
export const CONSOLE_JS = String.raw`'use strict';
(function () {
  var page = document.body.getAttribute('data-page');
  function el(id) { return document.getElementById(id); }
  function say(id, text) { el(id).textContent = text || ''; }
  // One request at a time: a request may renew the session (rotating the refresh cookie), and a
  // second one sent meanwhile would present the rotated cookie again, which ends the session.
  var queue = Promise.resolve();
  function api(method, path, body, csrf) {
    var reply = queue.then(function () { return send(method, path, body, csrf); });
    queue = reply.catch(function () { return null; });
    return reply;
  }
  async function send(method, path, body, csrf) {
    var headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (csrf) headers['X-CSRF-Token'] = csrf;
    var res = await fetch(path, { method: method, headers: headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    var data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    return { status: res.status, data: data, retryAfter: res.headers.get('Retry-After') };
  }
  function problem(reply) {
    var detail = reply.data && (reply.data.detail || reply.data.title);
    if (reply.status === 429 && reply.retryAfter) return (detail || 'Too many attempts') + ' (retry in ' + reply.retryAfter + ' s)';
    return detail || 'The service answered ' + reply.status;
  }

  // Where the console sent the person from (?next=): a console page of this service only,
  // never another origin (an open redirect), else the console's start.
  function nextPage() {
    var next = new URLSearchParams(window.location.search).get('next');
    return next && /^\/console(?:[/?#]|$)/.test(next) ? next : '/console';
  }

  async function login() {
    var email = '';
    el('email-form').addEventListener('submit', async function (event) {
      event.preventDefault();
      say('email-error', '');
      email = el('email').value.trim();
      var reply = await api('POST', '/auth/login', { email: email });
      if (reply.status !== 202) { say('email-error', problem(reply)); return; }
      say('code-for', email);
      el('email-step').hidden = true;
      el('code-step').hidden = false;
      el('code').focus();
    });
    el('code-form').addEventListener('submit', async function (event) {
      event.preventDefault();
      say('code-error', '');
      var reply = await api('POST', '/auth/verify', { email: email, code: el('code').value.trim() });
      if (reply.status === 200) { window.location.assign(nextPage()); return; }
      say('code-error', problem(reply));
    });
    el('restart').addEventListener('click', function () {
      el('code-step').hidden = true;
      el('email-step').hidden = false;
      el('code').value = '';
      el('email').focus();
    });
  }

  if (page === 'login') login();
})();
`;

export const CONSOLE_CSS = `${PALETTE_CSS}:root { font-family: system-ui, sans-serif; color: var(--ink); background: var(--wash); }
main { max-width: 56rem; margin: 2rem auto; padding: 0 1rem 3rem; }
h1 { font-size: 1.6rem; }
label { display: block; margin: 1rem 0 0.3rem; font-weight: 600; }
input { font: inherit; padding: 0.4rem 0.5rem; width: 20rem; max-width: 100%; }
button { font: inherit; margin-top: 0.8rem; padding: 0.4rem 0.9rem; cursor: pointer; }
button.link { background: none; border: none; padding: 0; color: var(--accent); text-decoration: underline; }
.error { color: var(--danger); min-height: 1.2em; }
.hint { color: var(--muted); font-size: 0.9rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; }
dt { font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1.5rem; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
code { font-family: ui-monospace, monospace; font-size: 0.85rem; }
code.token { word-break: break-all; }
.method { font-weight: 700; font-family: ui-monospace, monospace; }
`;
