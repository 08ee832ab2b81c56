// Accounts and their people, below both front ends (docs/architecture.md): password hashing,
// signing in, and the limits on failed authentications that the API and the dashboard share.
export { hashPassword, verifyPassword, passwordProblem, MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './password.js';
export { signIn, passwordHashOf, OWNER_USER_ID, type SignedInUser } from './sign-in.js';
export { AuthFailureLimiter, DEFAULT_AUTH_FAILURE_LIMITS, type AuthFailureLimits } from './auth-failures.js';
