import { z } from 'zod';

/**
 * Every instant in a response is ISO 8601 with its offset, written as the merchant's wall clock reads it
 * (`2026-11-23T09:00:00-03:00`): a merchant sees its own local time, and a program can still compare it.
 * Only `expireTime` of spec 2.3 keeps the zoneless `yyyy-MM-dd HH:mm:ss` the spec fixes.
 */
export const offsetDateTime = z.iso
  .datetime({ offset: true })
  .meta({ description: "ISO 8601 with the offset of the merchant's time zone." });
