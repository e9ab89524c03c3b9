/**
 * A remote A2A peer's card as the `a2a` backend (and the CLI's probe) reads it: either version,
 * leniently — a card is the peer's own claim and only a few members matter here. The peer's results
 * are read by the official client and then as v1 ProtoJSON (StreamResponseV1Schema in a2a-v1.ts).
 */
import { z } from 'zod';

/** A card's capabilities as a reader takes them (a peer's card here, the bridge's in the CLI): lenient, absent = none. */
export const ReadCapabilitiesSchema = z
  .looseObject({
    streaming: z.boolean().optional(),
    extensions: z
      .array(z.looseObject({ uri: z.string(), params: z.record(z.string(), z.unknown()).optional() }))
      .optional(),
  })
  .default({});

export const PeerCardSchema = z.looseObject({
  name: z.string().default('remote agent'),
  description: z.string().optional(),
  /** v0.3: the primary endpoint, its transport and version. */
  url: z.string().optional(),
  protocolVersion: z.string().optional(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(z.looseObject({ url: z.string(), transport: z.string() })).optional(),
  /** v1: endpoints in preference order. */
  supportedInterfaces: z
    .array(z.looseObject({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string().optional() }))
    .optional(),
  capabilities: ReadCapabilitiesSchema,
});
export type PeerCard = z.infer<typeof PeerCardSchema>;
