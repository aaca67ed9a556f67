/** What every page does with forms and messages: show API errors as their message, and progress. */
import { forgetSession, signInFirst } from './session.js';

/** Errors after which only a new sign-in helps: the button that goes there, and back. */
const SIGN_IN_AGAIN = new Set(['UNAUTHENTICATED', 'REAUTH_REQUIRED', 'INVITE_EMAIL_MISMATCH']);

/** Shows an error in an alert region: its message, each field problem, and the way out when there is one. */
export function showError(region, error) {
  region.replaceChildren(error.message);
  if (error.details?.length) {
    const list = document.createElement('ul');
    for (const detail of error.details) {
      const item = document.createElement('li');
      item.textContent = `${detail.path}: ${detail.message}`;
      list.append(item);
    }
    region.append(list);
  }
  if (SIGN_IN_AGAIN.has(error.code)) {
    const again = document.createElement('button');
    again.type = 'button';
    again.className = 'secondary';
    again.textContent = 'Sign in again';
    again.addEventListener('click', () => {
      forgetSession();
      signInFirst();
    });
    region.append(document.createElement('br'), again);
  }
}

/** Shows a success message in a notice region (role="status"). */
export function showNotice(region, text) {
  region.textContent = text;
}

/**
 * Runs `action(values, form)` when the form is submitted (values include the name and value of
 * the button that submitted it), with its buttons disabled meanwhile.
 * A thrown error is shown in the form's own alert region, and nothing else happens.
 */
export function onSubmit(form, action) {
  const alert = form.querySelector('[role="alert"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form, event.submitter));
    const buttons = [...form.querySelectorAll('button')];
    alert.replaceChildren();
    buttons.forEach((button) => (button.disabled = true));
    try {
      await action(values, form);
    } catch (error) {
      showError(alert, error);
    } finally {
      buttons.forEach((button) => (button.disabled = false));
    }
  });
}

/** Fills every [data-field] element under `root` with that field of `values`. */
export function fill(root, values) {
  for (const element of root.querySelectorAll('[data-field]')) {
    element.textContent = values[element.dataset.field] ?? '';
  }
}

/** An element with text: el('td', 'Ada'). */
export function el(tag, text = '', className = '') {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

/** Runs `action` when the button is clicked, with the button disabled meanwhile; an error is shown in `region`. */
export function onClick(button, region, action) {
  button.addEventListener('click', async () => {
    button.disabled = true;
    region.replaceChildren();
    try {
      await action();
    } catch (error) {
      showError(region, error);
    } finally {
      button.disabled = false;
    }
  });
}

/** A new button that runs `action` (see onClick); `name` says what it acts on when the label alone does not. */
export function actionButton(label, region, action, { name, className = 'secondary' } = {}) {
  const button = el('button', label, className);
  button.type = 'button';
  if (name) button.setAttribute('aria-label', name);
  onClick(button, region, action);
  return button;
}
