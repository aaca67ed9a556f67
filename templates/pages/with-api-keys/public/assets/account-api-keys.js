/**
 * The account page's API keys: the user's own, each acting as the user within its scopes until it
 * is deleted or expires (signing out everywhere ends sessions, not keys).
 */
import { onUser } from './account.js';
import { manageKeys } from './api-keys.js';

const keys = manageKeys(document.getElementById('api-keys'), '/api/auth/api-keys');
onUser(() => keys.show());
