import { describe, errorOf } from '../api/problem';
import { login as limits, verifyLogin as verifyLimits } from '../api/limits.gen';
import { check } from '../components/form';
import './login.css';

/**
 * GET /login (console/login.html): the email form, then the code form. Built by the console's
 * Vite build and type-checked with it; the service's refusals are said as the console says
 * them (api/problem.ts: problem+json detail, and a 429's Retry-After).
 */

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the login page has no #${id}`);
  return found as T;
}

/** POST a JSON body; null when the answer is `expected`, else the service's message. */
async function post(path: '/auth/login' | '/auth/verify', body: Record<string, string>, expected: number): Promise<string | null> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    credentials: 'same-origin',
    body: JSON.stringify(body),
  });
  if (response.status === expected) return null;
  return (await errorOf(response)).message;
}

/**
 * Where the console sent the person from (?next=): a console page of this service only, never
 * another origin (an open redirect), else the console's start.
 */
function nextPage(): string {
  const next = new URLSearchParams(window.location.search).get('next');
  return next && /^\/console(?:[/?#]|$)/.test(next) ? next : '/console';
}

function start(): void {
  const emailStep = element<HTMLElement>('email-step');
  const codeStep = element<HTMLElement>('code-step');
  const emailInput = element<HTMLInputElement>('email');
  const codeInput = element<HTMLInputElement>('code');
  const emailError = element<HTMLElement>('email-error');
  const codeError = element<HTMLElement>('code-error');
  let email = '';

  element<HTMLFormElement>('email-form').addEventListener('submit', (event) => {
    event.preventDefault();
    emailError.textContent = '';
    email = emailInput.value.trim();
    const invalid = check(limits.email, email);
    if (invalid) {
      emailError.textContent = invalid;
      return;
    }
    void post('/auth/login', { email }, 202).then(
      (problem) => {
        if (problem) {
          emailError.textContent = problem;
          return;
        }
        element<HTMLElement>('code-for').textContent = email;
        emailStep.hidden = true;
        codeStep.hidden = false;
        codeInput.focus();
      },
      (error: unknown) => (emailError.textContent = describe(error)),
    );
  });

  element<HTMLFormElement>('code-form').addEventListener('submit', (event) => {
    event.preventDefault();
    codeError.textContent = '';
    const code = codeInput.value.trim();
    const invalid = check(verifyLimits.code, code);
    if (invalid) {
      codeError.textContent = invalid;
      return;
    }
    void post('/auth/verify', { email, code }, 200).then(
      (problem) => {
        if (problem) codeError.textContent = problem;
        else window.location.assign(nextPage());
      },
      (error: unknown) => (codeError.textContent = describe(error)),
    );
  });

  element<HTMLButtonElement>('restart').addEventListener('click', () => {
    codeStep.hidden = true;
    emailStep.hidden = false;
    codeInput.value = '';
    emailInput.focus();
  });
}

start();
