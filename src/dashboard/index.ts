// The account dashboard (server-rendered pages under /dashboard) for `faxstack serve`.
export { registerDashboard } from './routes.js';
export type { DashboardOptions } from './kit.js';
export { hashPassword, verifyPassword, passwordProblem, MIN_PASSWORD_LENGTH } from './password.js';
