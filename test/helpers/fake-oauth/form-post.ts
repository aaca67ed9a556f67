/**
 * Reads the auto-submitting form of a form_post authorization response (apple), so a test without
 * a browser can post it to the app as the browser would.
 */

export interface FormPost {
  /** The form's action: the redirect_uri. */
  action: string;
  /** Its hidden fields (code, state, user; or error, error_description, state). */
  fields: Record<string, string>;
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function parseFormPost(html: string): FormPost {
  const form = /<form\b[^>]*\bmethod="POST"[^>]*\baction="([^"]*)"/i.exec(html);
  if (!form) throw new Error(`No POST form in the page:\n${html}`);
  const fields: Record<string, string> = {};
  for (const input of html.matchAll(/<input\b[^>]*\bname="([^"]*)"[^>]*\bvalue="([^"]*)"/gi)) {
    fields[unescapeHtml(input[1]!)] = unescapeHtml(input[2]!);
  }
  return { action: unescapeHtml(form[1]!), fields };
}
