import { renderPage } from '@app/contracts';

/** GET /login: the email form, then the code form (console.js drives both with fetch). */
export function loginPage(): string {
  return renderPage({
    title: 'Log in',
    page: 'login',
    script: true,
    body: `<h1>Log in to the console</h1>
<noscript><p class="error">This page needs JavaScript. Without it, use the API: POST /auth/login, then POST /auth/verify.</p></noscript>
<section id="email-step">
<form id="email-form" autocomplete="on">
<label for="email">Email address</label>
<input id="email" name="email" type="email" required autocomplete="email" maxlength="254">
<button type="submit" id="send">Send me a login code</button>
</form>
<p id="email-error" class="error" role="alert"></p>
</section>
<section id="code-step" hidden>
<p>If <strong id="code-for"></strong> is invited, a 6-digit code and a login link are on their way. Both are valid for 15 minutes and can be used once.</p>
<form id="code-form" autocomplete="off">
<label for="code">Login code</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" minlength="6" maxlength="6" required autocomplete="one-time-code">
<button type="submit" id="verify">Log in</button>
</form>
<p id="code-error" class="error" role="alert"></p>
<p><button type="button" id="restart" class="link">Use another address</button></p>
</section>
<p class="hint">Logins are by invitation only. <a href="/docs">API documentation</a></p>`,
  });
}
