// The release of this build (package.json's version; a test keeps them equal).
export const VERSION = '0.1.0';
