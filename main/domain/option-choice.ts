/**
 * The one wording for an answer that names none of a question's options, whichever kind of question
 * (a permission, a decision) and whichever surface (`contactor answer`, `top`, the approval window, the
 * JSON-RPC error): `there is no option 5: choose 1-2 (1. YAML; 2. TOML)`, then what else is accepted.
 */
const NUMBER_LIKE = /^-?\d+\.?$/;

export function noSuchOption(answer: string, names: readonly string[], otherwise?: string): string {
  const said = NUMBER_LIKE.test(answer) ? answer : `"${answer}"`;
  const listed = names.map((name, i) => `${i + 1}. ${name}`).join('; ');
  return `there is no option ${said}: choose 1-${names.length} (${listed})${otherwise ? `, ${otherwise}` : ''}`;
}
