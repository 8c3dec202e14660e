/**
 * Pure path arithmetic for the core, which may not import `node:path`: lexical resolution
 * against a base directory and a containment check. POSIX paths and Windows drive or UNC
 * paths are both understood; the style is taken from the base directory.
 */

const WINDOWS_ROOT = /^(?:[A-Za-z]:[\\/]|\\\\)/;

function isWindowsPath(path: string): boolean {
  return WINDOWS_ROOT.test(path);
}

/** Whether `path` is absolute (POSIX `/...`, Windows `C:\...` or `\\server\...`). */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || isWindowsPath(path);
}

function normalize(path: string, windows: boolean): string {
  const separator = windows ? '\\' : '/';
  let root = '';
  let rest = path;
  if (windows) {
    const drive = /^[A-Za-z]:[\\/]/.exec(path);
    if (drive) {
      root = `${path.slice(0, 2)}\\`;
      rest = path.slice(3);
    } else if (path.startsWith('\\\\')) {
      root = '\\\\';
      rest = path.slice(2);
    }
  } else if (path.startsWith('/')) {
    root = '/';
    rest = path.slice(1);
  }
  const segments: string[] = [];
  for (const segment of rest.split(windows ? /[\\/]/ : '/')) {
    if (segment === '' || segment === '.') continue;
    // `..` never climbs above the root, as the OS resolves it.
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return root + segments.join(separator);
}

/**
 * Resolves `target` against `baseDir` lexically (no symlinks followed): an absolute target
 * stands alone; `.` and `..` segments are folded; repeated separators collapse.
 */
export function resolvePathFrom(baseDir: string, ...targets: string[]): string {
  const windows = isWindowsPath(baseDir);
  let current = baseDir;
  for (const target of targets) {
    if (windows ? isWindowsPath(target) : target.startsWith('/')) current = target;
    // On Windows, `\dir` is rooted on the drive of the base.
    else if (windows && /^[\\/]/.test(target)) current = `${current.slice(0, 2)}${target}`;
    else current = `${current}${windows ? '\\' : '/'}${target}`;
  }
  return normalize(current, windows);
}

/**
 * Whether `candidate` is `root` itself or lies below it. Both must be absolute and
 * normalized (as {@link resolvePathFrom} returns them). Windows paths compare without case.
 */
export function isPathInside(root: string, candidate: string): boolean {
  const windows = isWindowsPath(root);
  const separator = windows ? '\\' : '/';
  const normalizedRoot = windows ? root.toLowerCase() : root;
  const normalizedCandidate = windows ? candidate.toLowerCase() : candidate;
  if (normalizedCandidate === normalizedRoot) return true;
  const prefix = normalizedRoot.endsWith(separator) ? normalizedRoot : normalizedRoot + separator;
  return normalizedCandidate.startsWith(prefix);
}
