// Resource quantities (k8s.io/apimachinery/pkg/api/resource), by the serialization format the
// API reference gives:
//   <quantity> ::= <signedNumber><suffix>
//   <number> ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix> ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI> ::= m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>

const NUMBER = String.raw`[+-]?(?:\d+\.\d*|\d+|\.\d+)`;
const QUANTITY = new RegExp(`^(${NUMBER})(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE]${NUMBER})?$`);

export const QUANTITY_HELP = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const FACTOR: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The quantity's value (a float: enough to compare a request with its limit), or null when it is not one. */
export function parseQuantity(text: string): number | null {
  const match = QUANTITY.exec(text);
  if (!match) return null;
  const [, number = '', suffix = ''] = match;
  const base = Number(number);
  if (/^[eE]/.test(suffix)) return base * 10 ** Number(suffix.slice(1));
  return base * (FACTOR[suffix] ?? Number.NaN);
}
