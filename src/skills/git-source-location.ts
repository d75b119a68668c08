// Where a git skill source's skills are: the repository to clone, the branch, the folder inside.

/** A git skill source taken apart: what to clone, which branch, and the folder of the skills. */
export interface GitSourceLocation {
  /** What `git clone` is given. */
  repository: string;
  /** The branch to check out; null: the repository's default branch. */
  branch: string | null;
  /** The folder inside the repository that holds the skills; '' for the whole repository. */
  path: string;
}

const GITHUB_TREE = /^(https:\/\/github\.com\/[^/\s]+\/[^/\s]+?)(?:\.git)?\/tree\/([^/\s]+)(?:\/(.*))?$/;

/**
 * Reads a GitHub URL as GitHub shows a folder, `https://github.com/<owner>/<repo>/tree/<branch>/<path>`:
 * repository `https://github.com/<owner>/<repo>.git`, that branch, that folder. Any other URL is the
 * repository itself (default branch, whole repository). The branch is the segment after `tree/`,
 * so a branch whose name has a `/` cannot be given this way: clone the repository URL and set the
 * folder (`GitPollingWatcher`'s `subfolder`) instead.
 * @example
 * parseGitSource('https://github.com/acme/skills/tree/main/ops/skills');
 * // { repository: 'https://github.com/acme/skills.git', branch: 'main', path: 'ops/skills' }
 * parseGitSource('https://github.com/acme/skills.git');
 * // { repository: 'https://github.com/acme/skills.git', branch: null, path: '' }
 */
export function parseGitSource(source: string): GitSourceLocation {
  const tree = GITHUB_TREE.exec(source.replace(/\/+$/, ''));
  if (!tree) return { repository: source, branch: null, path: '' };
  const folder = (tree[3] ?? '')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .map((segment) => decodeURIComponent(segment));
  if (folder.includes('..')) return { repository: source, branch: null, path: '' };
  return { repository: `${tree[1]}.git`, branch: decodeURIComponent(tree[2]!), path: folder.join('/') };
}
