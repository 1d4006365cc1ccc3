/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { encode } from 'uqr';

/**
 * A QR code of `text` drawn on the server as SVG (the `uqr` package encodes, we draw): one path of unit
 * squares on a white square with the standard quiet zone of 4 modules, no style attribute (the CSP allows
 * no inline style), scalable by CSS. Error correction M: a phone reads it off a screen or a print.
 */
export function QrCode(props: { text: string; label: string; testid?: string }) {
  const border = 4;
  const qr = encode(props.text, { ecc: 'M', border: 0 });
  const size = qr.size + border * 2;
  let d = '';
  qr.data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x + border} ${y + border}h1v1h-1z`;
    });
  });
  return (
    <svg
      class="qr"
      role="img"
      aria-label={props.label}
      viewBox={`0 0 ${size} ${size}`}
      xmlns="http://www.w3.org/2000/svg"
      shape-rendering="crispEdges"
      data-testid={props.testid}
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
