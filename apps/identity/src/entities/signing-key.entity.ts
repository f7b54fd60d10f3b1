import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An Ed25519 key pair. `active` keys are published in the JWKS; the newest active key signs.
 * The private key never leaves the identity app (not logged, not returned).
 */
@Entity({ schema: 'identity', name: 'signing_keys' })
export class SigningKeyEntity {
  /** RFC 7638 thumbprint of the public JWK. */
  @PrimaryColumn({ type: 'text' })
  kid!: string;

  @Column({ type: 'text' })
  alg!: string;

  /** base64url Ed25519 public key (the JWK `x`). */
  @Column({ name: 'public_x', type: 'text' })
  publicX!: string;

  /** PKCS#8 PEM. */
  @Column({ name: 'private_pkcs8', type: 'text' })
  privatePkcs8!: string;

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
