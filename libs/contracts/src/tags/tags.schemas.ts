import { Type, type Static } from '@sinclair/typebox';
import { TagName } from '../registry/registry.schemas.js';
import { CustomerQuery } from '../schemas.js';

/** A tag and how many builds and devices carry it (docs/api.md "Tags API"). */
export const TagCount = Type.Object({ tag: Type.String(), firmware: Type.Integer(), devices: Type.Integer() }, { $id: 'TagCount' });
export type TagCount = Static<typeof TagCount>;

export const TagCountList = Type.Object({ items: Type.Array(TagCount, { description: 'Sorted by tag' }) });
export type TagCountList = Static<typeof TagCountList>;

export const TagParams = Type.Object({ tag: TagName });
export type TagParams = Static<typeof TagParams>;

export const TagsCustomerQuery = Type.Object({ customer: CustomerQuery });
export type TagsCustomerQuery = Static<typeof TagsCustomerQuery>;

export const TagRenameRequest = Type.Object({ to: TagName }, { additionalProperties: false });
export type TagRenameRequest = Static<typeof TagRenameRequest>;

/**
 * The answer of a rename or delete. Builds are changed at once; the devices are changed by
 * the registry, retried in the background until it has applied the change when it cannot do
 * so right away: then `pending` is true and `devices` is null.
 */
export const TagChangeResult = Type.Object({
  tag: Type.String({ description: 'The tag as it is now (rename: the new name)' }),
  firmware: Type.Integer({ description: 'Builds carrying it now (0 after a delete)' }),
  devices: Type.Union([Type.Integer(), Type.Null()], { description: 'Devices carrying it now; null while pending' }),
  pending: Type.Boolean({ description: 'true: the devices are not changed yet (the change is retried until they are)' }),
});
export type TagChangeResult = Static<typeof TagChangeResult>;
