/** The package's version (package.json's; a unit test keeps the two equal), sent in the User-Agent. */
export const CLIENT_VERSION = '0.1.0';
