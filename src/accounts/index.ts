// Accounts and their people, below both front ends (docs/architecture.md): password hashing,
// signing in, and the limits on failed authentications that the API and the dashboard share.
export { hashPassword, verifyPassword, passwordProblem, MAX_PASSWORD_LENGTH } from './password.js';
export { signIn, passwordHashOf, OWNER_USER_ID } from './sign-in.js';
export { AuthFailureLimiter } from './auth-failures.js';
