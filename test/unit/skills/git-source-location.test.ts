import { describe, expect, it } from '@jest/globals';
import { parseGitSource } from '../../../src/skills/git-source-location';
import { skillsFolderOf } from '../../../src/skills/git-checkout';

describe('git skill source URLs', () => {
  it('reads a GitHub …/tree/<branch>/<path> URL as the repository, the branch and the folder', () => {
    expect(parseGitSource('https://github.com/org/shared-skills/tree/main/skills')).toEqual({
      repository: 'https://github.com/org/shared-skills.git',
      branch: 'main',
      path: 'skills',
    });
    expect(parseGitSource('https://github.com/org/shared-skills/tree/release-2/ops/skills/')).toEqual({
      repository: 'https://github.com/org/shared-skills.git',
      branch: 'release-2',
      path: 'ops/skills',
    });
    expect(parseGitSource('https://github.com/org/shared-skills/tree/v1.2')).toEqual({
      repository: 'https://github.com/org/shared-skills.git',
      branch: 'v1.2',
      path: '',
    });
    expect(parseGitSource('https://github.com/org/shared-skills/tree/main/my%20skills')).toMatchObject({ path: 'my skills' });
  });

  it('takes any other URL as the repository itself: default branch, whole repository', () => {
    for (const url of [
      'https://github.com/org/shared-skills.git',
      'https://gitlab.com/org/skills/tree/main/x',
      'file:///tmp/remote.git',
      'git@github.com:org/skills.git',
    ]) {
      expect(parseGitSource(url)).toEqual({ repository: url, branch: null, path: '' });
    }
  });

  it('never reads a folder outside the checkout', () => {
    expect(parseGitSource('https://github.com/org/skills/tree/main/../../etc')).toEqual({
      repository: 'https://github.com/org/skills/tree/main/../../etc',
      branch: null,
      path: '',
    });
    expect(skillsFolderOf('/cache/abc', 'https://github.com/org/skills/tree/main/skills')).toBe('/cache/abc/skills');
  });
});
