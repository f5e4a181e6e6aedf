import { z } from 'zod';
import { RPC_MAX_BASE64 } from '../limits';

export const BundleFileCheck = z.object({
  path: z.string(),
  role: z.string().nullable(),
  status: z.enum(['match', 'altered', 'missing', 'unlisted']),
});

/** What checking a bundle found, in data and in plain sentences. */
export const VerifyReport = z.object({
  /** True only when the signature is valid and every file matches, with nothing added. */
  ok: z.boolean(),
  readable: z.boolean(),
  manifest: z.enum(['ok', 'missing', 'unreadable']),
  signature: z.enum(['valid', 'invalid', 'missing']),
  signer: z.object({ fingerprint: z.string(), thisInstallation: z.boolean().nullable() }).nullable(),
  files: z.array(BundleFileCheck),
  query: z.object({ id: z.number(), kind: z.string(), queryText: z.string(), startedAt: z.string() }).nullable(),
  app: z.object({ name: z.string(), version: z.string() }).nullable(),
  lines: z.array(z.string()),
});
export type VerifyReport = z.infer<typeof VerifyReport>;

export const evidenceMethods = {
  /** Writes a signed evidence bundle of one cached result into the data folder's evidence/. */
  'evidence.create': {
    /**
     * blurFaces (default true): faces in the bundle's images are hidden; blurVehicles (default false,
     * with blurFaces): vehicles are blurred whole, a coarse stand-in for number plates. The manifest says what was done.
     */
    input: z.object({ queryId: z.number().int().positive(), blurFaces: z.boolean().optional(), blurVehicles: z.boolean().optional() }).strict(),
    output: z.object({
      path: z.string(),
      name: z.string(),
      size: z.number().int(),
      sha256: z.string(),
      fingerprint: z.string(),
      files: z.array(z.object({ path: z.string(), role: z.string(), size: z.number().int(), sha256: z.string() })),
      privacy: z
        .object({ facesBlurred: z.boolean(), faces: z.number().int(), vehiclesBlurred: z.boolean(), vehicles: z.number().int(), note: z.string() })
        .optional(),
    }),
  },
  /** Checks a bundle given by path (in the data folder or anywhere the app may read) or by content. */
  'evidence.verify': {
    input: z
      .object({ path: z.string().min(1).optional(), dataBase64: z.string().min(1).max(RPC_MAX_BASE64).optional() })
      .strict()
      .refine((v) => (v.path === undefined) !== (v.dataBase64 === undefined), 'give either path or dataBase64'),
    output: VerifyReport,
  },
  /** This installation's signing key (made on first use). */
  'evidence.key': { input: z.object({}).strict(), output: z.object({ fingerprint: z.string(), publicKey: z.string() }) },
} as const;
