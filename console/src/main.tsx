import { render } from 'preact';
import { describe, errorOf } from './api/problem';
import { loginUrl, session } from './api/session';
import { App } from './app/app';
import type { Identity } from './app/identity';
import './styles.css';

/**
 * Who is logged in (GET /auth/me, alone: it may renew the session), then the session's timing,
 * both in the session's turn among the browser's tabs; then the app.
 */
async function start(root: HTMLElement): Promise<void> {
  const identity = await session.begin(async () => {
    const response = await fetch('/auth/me', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (response.status === 401) return null;
    if (!response.ok) throw await errorOf(response);
    return (await response.json()) as Identity;
  });
  if (!identity) {
    window.location.replace(loginUrl());
    return;
  }
  root.textContent = '';
  render(<App identity={identity} />, root);
}

const root = document.getElementById('app')!;
start(root).catch((error: unknown) => {
  root.textContent = '';
  const message = document.createElement('p');
  message.className = 'error';
  message.setAttribute('role', 'alert');
  message.textContent = `The console could not start: ${describe(error)}`;
  root.append(message);
});
