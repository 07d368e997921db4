export { branchNameProblem, isValidBranchName } from './branchName.js';
export { relativePathProblem, isSafeRelativePath } from './relativePath.js';
