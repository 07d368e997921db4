import type { Repo } from '@ars/contract';
import type { RepoDoc } from '../store/collections.js';

export function toRepo(doc: RepoDoc): Repo {
  return {
    id: doc._id,
    full_name: doc.full_name,
    installation_id: doc.installationId,
    default_branch: doc.default_branch,
    root_directory: doc.root_directory,
  };
}
