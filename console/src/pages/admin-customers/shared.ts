/** The customer's page in the console. */
export function customerPath(domain: string): string {
  return `/console/admin/customers/${encodeURIComponent(domain)}`;
}

/** CORS origins typed one per line (or separated by spaces or commas). */
export function originsOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/** The API's message for an address it would refuse (it checks the email format). */
export function checkEmail(email: string): string | null {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254 ? null : 'email must be a valid email address';
}
