/**
 * Without `@aws-sdk/client-s3` installed, the S3 store is still created (the SDK is imported on
 * first use), and its first operation rejects with MISSING_DEPENDENCY saying what to install.
 * The SDK is made unloadable with a module mock that fails as a missing package does.
 */
import { describe, expect, it, vi } from 'vitest';
import { createS3Store } from '../../../src/stores/s3-store.js';

vi.mock('@aws-sdk/client-s3', () => {
  throw Object.assign(new Error("Cannot find package '@aws-sdk/client-s3' imported from src/stores"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
});

describe('createS3Store without @aws-sdk/client-s3', () => {
  it('creates the store, and rejects the first operation with MISSING_DEPENDENCY, also with a client of your own', async () => {
    const send = vi.fn(async () => ({}));
    const store = createS3Store({ client: { send }, bucket: 'b' });
    expect(store.referenceFor('a.md')).toBe('s3://b/agent-context-offload/a.md');
    await expect(store.putIfAbsent('a.md', 'x')).rejects.toMatchObject({
      code: 'MISSING_DEPENDENCY',
      message: expect.stringContaining('npm install @aws-sdk/client-s3'),
    });
    await expect(store.get('a.md')).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY' });
    await expect(store.stat('a.md')).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(send).not.toHaveBeenCalled();
  });

  it('rejects with MISSING_DEPENDENCY when it would construct the client from config', async () => {
    const store = createS3Store({ config: { region: 'us-east-1' }, bucket: 'b' });
    await expect(store.put('a.md', 'x')).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY' });
  });
});
