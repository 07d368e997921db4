/**
 * The length of a text as the contract counts "characters": Unicode code points, so an emoji (one
 * character, two UTF-16 units in a JavaScript string) counts one. The same unit as JSON Schema's
 * `maxLength` in ajv, so a limit checked by a schema and one checked in code agree.
 */
export function characterCount(text: string): number {
  let count = 0;
  // A string iterates by code point (a surrogate pair is one step).
  for (const _ of text) count += 1;
  return count;
}

/** "`field` must be at most `max` characters" when the text is longer (code points), else null. */
export function tooManyCharacters(field: string, text: string, max: number): string | null {
  // A text of at most `max` UTF-16 units has at most `max` code points: no need to count it.
  if (text.length <= max || characterCount(text) <= max) return null;
  return `${field} must be at most ${max} characters`;
}
