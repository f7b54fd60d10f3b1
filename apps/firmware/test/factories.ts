/**
 * Test factories for the firmware app's tests. The request-side ones (makeCustomer, makeContext, makeCall) come from
 * '@app/testing'.
 */
import { randomUUID } from 'node:crypto';
import { asCustomerId, type FwType } from '@app/contracts';
import { versionKey } from '../src/domain/version-order.js';
import { BuildEntity } from '../src/entities/build.entity.js';
import type { NewBuild } from '../src/repositories/build.repository.js';

/** The actor the firmware tests' requests and uploads are attributed to. */
export const FIRMWARE_TEST_ACTOR = 'token:t1';

/** A build to insert through the repository (add the customerId), version 1.0 of board/rev1/main unless overridden. */
export function makeNewBuild(overrides: Partial<NewBuild> = {}): NewBuild {
  const fwVersion = overrides.fwVersion ?? '1.0';
  return {
    hwName: 'board',
    hwVersion: 'rev1',
    fwName: 'main',
    fwVersion,
    fwType: 'AFI',
    versionKey: versionKey(fwVersion),
    buildDate: new Date('2026-11-20T10:00:00Z'),
    generalRelease: false,
    objectKey: `uploads/${randomUUID()}`,
    sizeBytes: 10,
    sha256: 'a'.repeat(64),
    whatString: null,
    notes: null,
    uploadedBy: FIRMWARE_TEST_ACTOR,
    ...overrides,
  };
}

export interface BuildEntityOptions {
  readonly general?: boolean;
  readonly tags?: string[];
  readonly tagFilterDisabled?: boolean;
  readonly fwType?: FwType;
  readonly revision?: number;
}

/** An active build of board/rev1/main at `fwVersion`, not persisted (for the in-memory update-check index). */
export function makeBuildEntity(fwVersion: string, options: BuildEntityOptions = {}): BuildEntity {
  return Object.assign(new BuildEntity(), {
    id: randomUUID(),
    customerId: asCustomerId(randomUUID()),
    hwName: 'board',
    hwVersion: 'rev1',
    fwName: 'main',
    fwVersion,
    fwType: options.fwType ?? 'AFI',
    versionKey: versionKey(fwVersion),
    buildDate: new Date('2026-11-20T10:00:00Z'),
    generalRelease: options.general ?? false,
    tagFilterDisabled: options.tagFilterDisabled ?? false,
    status: 'active',
    objectKey: 'uploads/x',
    sizeBytes: 1,
    sha256: 'a'.repeat(64),
    whatString: null,
    notes: null,
    uploadedAt: new Date(),
    uploadedBy: 'token:t',
    updatedAt: new Date(),
    revision: options.revision ?? 1,
    downloadCount: 0,
    notesDownloadCount: 0,
    tags: options.tags ?? [],
  });
}

/** The bytes of a firmware binary whose what string (after the `@(#)` marker) reads `what`, e.g. '1.0, 2026-11-20, AFI'. */
export function makeFirmwareBinary(what: string): Buffer {
  return Buffer.from(`\0\0@(#)${what}\0tail`, 'latin1');
}
