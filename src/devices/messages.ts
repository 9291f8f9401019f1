import { z } from 'zod';

/**
 * Device → agent messages (docs/serial-protocol.md, "Messages"). Objects are loose: unknown
 * fields are ignored, as the protocol asks (docs/serial-protocol.md, "Messages"). Validation errors never echo the input, so a
 * malformed cardResult cannot leak card data into a log line.
 */
export const deviceMessage = z.looseObject({ type: z.string(), id: z.string().optional() });
export type DeviceMessage = z.infer<typeof deviceMessage>;

export const readerHello = z.looseObject({
  type: z.literal('hello'),
  id: z.string(),
  model: z.string(),
  serialNumber: z.string().optional(),
  firmware: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
});

export const displayHello = z.looseObject({
  type: z.literal('hello'),
  id: z.string(),
  model: z.string(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});

export const readerSteps = ['cardPresented', 'pinRequested', 'pinEntered', 'removeCard'] as const;
export type ReaderStep = (typeof readerSteps)[number];

export const readerEvent = z.looseObject({
  type: z.literal('event'),
  id: z.string(),
  event: z.string(),
  entryMode: z.string().optional(),
});

export const entryModes = ['ContactChip', 'ContactlessChip', 'Magstripe', 'Keyed'] as const;

const hex = z.string().regex(/^[0-9A-Fa-f]+$/);
/**
 * A masked PAN: first digits, at least 4 mask characters, last 4 digits. A reader that
 * sends anything else (e.g. a full PAN) is refused, so a clear PAN is never shown.
 */
export const maskedPan = z.string().regex(/^[0-9]{0,8}[*Xx]{4,}[0-9]{4}$/);

export const cardResultOk = z.looseObject({
  type: z.literal('cardResult'),
  id: z.string(),
  outcome: z.literal('ok'),
  entryMode: z.enum(entryModes),
  card: z.looseObject({
    maskedPan,
    scheme: z.string().min(1),
    expiry: z.string().regex(/^[0-9]{4}$/),
    encryptedData: hex,
    ksn: hex,
  }),
  pin: z.looseObject({ pinblock: hex, ksn: hex, format: z.string().min(1) }).optional(),
  /** Not in the peripherals' protocol: a reader that approved offline says so, as unknown fields are allowed (docs/serial-protocol.md, "Decisions"). */
  offlineApproved: z.boolean().optional(),
});

export const cardResultOther = z.looseObject({
  type: z.literal('cardResult'),
  id: z.string(),
  outcome: z.enum(['cancelled', 'timeout', 'declined', 'error']),
  reason: z.string().optional(),
});

export const cardResult = z.union([cardResultOk, cardResultOther]);

export const deviceError = z.looseObject({
  type: z.literal('error'),
  id: z.string().optional(),
  code: z.string(),
  message: z.string().optional(),
});

/** Field paths of a failed validation, for a log line without values. */
export function issuePaths(err: z.ZodError): string[] {
  return err.issues.map((i) => i.path.join('.') || '(root)');
}
