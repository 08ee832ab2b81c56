// The account dashboard (server-rendered pages under /dashboard) for `faxstack serve`.
export { registerDashboard, type DashboardOptions } from './routes.js';
export { hashPassword, verifyPassword, passwordProblem, MIN_PASSWORD_LENGTH } from './password.js';
