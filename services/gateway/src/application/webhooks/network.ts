import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not be sent to (no server-side request forgery): loopback, private, link-local
 * (cloud metadata), carrier-grade NAT, multicast and the unspecified address, IPv4 and IPv6.
 */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return forbidden.check(address, 'ipv4');
  if (version === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return forbidden.check(mapped[1] as string, 'ipv4');
    return forbidden.check(address, 'ipv6');
  }
  return false;
}

/** The host of a URL as an address when it is one (`[::1]` → `::1`), else null. */
export function literalAddressOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/**
 * Why a webhook URL is refused before anything is sent, or null. Names are checked again when they
 * resolve (a public name may point at a private address); here only what the URL itself says.
 */
export function refusedWebhookUrl(url: string, allowPrivateNetworks: boolean): string | null {
  if (allowPrivateNetworks) return null;
  const { hostname } = new URL(url);
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost'))
    return 'must not point to this machine (localhost)';
  const literal = literalAddressOf(host);
  if (literal && isPrivateAddress(literal))
    return 'must not point to a loopback, private or link-local address';
  return null;
}
