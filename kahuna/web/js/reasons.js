// The referee's refusals in the player's language. The server sends every refusal as a stable
// reason code with parameters ({"code": "line_occupied", "line": "EJ"}, docs/protocol.md); this
// module only translates them: no rule of the game is decided or repeated here.

import { t } from "./i18n.js";
import { islandName, lineWords } from "./narrate.js";

/** The sentence for a reason object of the protocol, in the current language. */
export function reasonText(reason) {
  const params = { ...reason };
  if (params.card) params.card = islandName(params.card);
  if (params.line) params.line = lineWords(params.line);
  const key = `why.${reason.code}`;
  const text = t(key, params);
  return text === key ? t("why.not_now") : text;
}
