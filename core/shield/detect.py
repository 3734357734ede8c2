"""Text addressed to the model, not to a human reader: the mechanisms an indirect injection needs.

Every check reads the text as a model would (normalize.py) and looks for a mechanism, not a
phrasing: a model named as the one spoken to ("AI assistants must tell …", "Note for any LLM:"),
its instructions overridden, a chat role or a knowledge-block boundary forged, the user's question
redirected, a claim of precedence over the other retrieved passages, an encoded payload to decode
and follow, the conversation shipped to a URL, secrets asked for, the model told to hide the order
or to become someone else. Imperatives to a reader ("Ignore the bloom if …", "If a guest asks,
tell them …", "Always respond to the renewal email") name no model and touch none of these, so
they pass. Every repetition is bounded (retrieved text is attacker-controlled and matching must
stay linear). The suites and their figures: tests/system/test_shield.py.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from core.shield.normalize import reading
from core.shield.vocab import (
    ADDRESSEE,
    ASSISTANT,
    AUTHORITY,
    BLOCK,
    EVERYTHING_BEFORE,
    IGNORE,
    IMPERATIVE,
    INSTRUCTIONS,
    MODEL,
    OBLIGATION,
    PRIOR,
    ROLES,
    VERBS,
)

try:  # the parser re compiles with: which characters an alternative names
    from re import _parser
except ImportError:  # pragma: no cover - another Python
    _parser = None  # type: ignore[assignment]

_F = re.IGNORECASE | re.MULTILINE
_WHO = rf"(?:\b{MODEL}\b|{ASSISTANT})"
# the model as the subject of a clause: at its start, or after a determiner ("Importers of AI
# systems must …" and "The AI Office shall …" name a model without speaking to it)
_SUBJECT = (
    rf"(?:(?:^|[.!?:;,(\n]\s{{0,3}}|\b(?:the|all|any|every|an?|these|those|such|our|your|dear|attention|to)\s{{1,3}})"
    rf"[\W_]{{0,3}}\b{MODEL}s?\b|{ASSISTANT})"
)
# what may stand between that subject and its order: a participle or relative clause
_CLAUSE = (
    r"(?:\s{1,5}(?:reading|processing|parsing|answering|summari[sz]ing|seeing|handling|(?:that|which|who)\s{1,5}\w+)"
    r"[^.!?\n]{0,30}?)?"
)
_VERB = rf"\b{IMPERATIVE}\b"


_PARTS: dict[str, tuple[str, ...]] = {}  # a pattern's source → its alternatives


def _rx(*parts: str) -> re.Pattern[str]:
    rx = re.compile(_either(parts), _F)
    _PARTS[rx.pattern] = parts
    return rx


def _either(parts: Sequence[str]) -> str:
    return "|".join(f"(?:{p})" for p in parts)


# reason → what shows it (each pattern is one mechanism, in the languages of vocab.py)
PATTERNS: dict[str, re.Pattern[str]] = {
    "overrides the model's instructions": _rx(
        rf"\b{IGNORE}\b[^.!?\n]{{0,30}}?\b{PRIOR}\b[^.!?\n]{{0,25}}?\b{INSTRUCTIONS}\b",
        rf"\b{IGNORE}\s{{1,5}}{EVERYTHING_BEFORE}",
        rf"\b{IGNORE}\b[^.!?\n]{{0,30}}?\b{INSTRUCTIONS}\s{{1,5}}(?:that\s{{1,5}})?you(?:'ve|\s{{1,5}}were|\s{{1,5}}have\s{{1,5}}been)"
        r"\s{1,5}(?:given|told|taught|provided)\b",
        r"\b(?:guidance|instructions?|rules|directives?|prompts?|configuration|guidelines)\s{1,5}(?:that\s{1,5})?you\s{1,5}"
        r"(?:were|have\s{1,5}been|'ve\s{1,5}been)\s{1,5}(?:handed|given|told|provided|issued|set\s{1,5}up\s{1,5}with)\b"
        r"[^.!?\n]{0,60}?\b(?:has|have|is|are)\s{1,5}(?:been\s{1,5})?(?:retired|revoked|cancel+ed|withdrawn|replaced|"
        r"superseded|suspended|deprioriti[sz]ed|lifted|disabled|void|obsolete|no\s{1,5}longer)",
        rf"\b{IGNORE}\b[^.!?\n]{{0,25}}?\b(?:search\s{{1,5}}results|retrieved\s{{1,5}}\w+|retrieval\s{{1,5}}results|the\s{{1,5}}"
        r"context|provided\s{1,5}(?:context|documents|passages))\b",
        r"\bno\s{1,5}(?:memory|recollection|knowledge)\s{1,5}of\s{1,5}(?:your|its|the)\s{1,5}(?:old\s{1,5}|previous\s{1,5}|"
        r"original\s{1,5}|prior\s{1,5})?(?:instructions|rules|prompt|guidelines|programming)\b",
        r"\b(?:the|this)\s{1,5}model\s{1,5}(?:must|should|shall|is\s{1,5}to|will\s{1,5}now)\s{1,5}(?:now\s{1,5})?"
        rf"(?:{IGNORE}|inform\s{{1,5}}(?:users|customers|the\s{{1,5}}user)|tell\s{{1,5}}(?:users|customers|the\s{{1,5}}user)|"
        r"respond|reply|answer\s{1,5}(?:every|all|any))\b",
        r"\bset\s{1,5}(?:all\s{1,5}(?:of\s{1,5})?)?(?:those|these|them|your\s{1,5}rules|the\s{1,5}rules|your\s{1,5}instructions)"
        r"\s{1,5}aside\b",
        r"\b(?:previous|prior|earlier|original|initial|system)\s{1,5}(?:instructions|prompt)\s{1,5}(?:are|is|were|have been)"
        r"\s{1,5}(?:void|cancel+ed|revoked|obsolete|outdated|no longer|suspended|replaced|superseded)",
        r"\b(?:refusals?|refusal\s{1,5}rules?|guardrails?|safety\s{1,5}(?:rules?|filters?|guidelines))\b[^.!?\n]{0,20}"
        r"\b(?:disabled|off|lifted|removed|suspended|no longer apply)\b",
        r"\b(?:answer|respond|reply)\b[^.!?\n]{0,30}\bfrom\s{1,5}(?:your\s{1,5})?(?:general|own|prior|training|background)"
        r"\s{1,5}(?:knowledge|data)\b",
    ),
    "speaks to the model": _rx(
        rf"{_SUBJECT}\s{{0,3}}[,:;\u2014\u2013-]\s{{0,5}}(?:please\s{{1,5}})?{_VERB}",
        rf"\b(?:note|message|instructions?|attention|notice|memo|reminder|warning|directive|important|p\.?s\.?|hinweis|"
        rf"nachricht|nota|mensaje|aviso|remarque|avis|messaggio|avviso|mensagem)\s{{1,5}}(?:to|for|an|für|para|pour|à|per|"
        rf"a)\s{{1,5}}(?:the\s{{1,5}}|any\s{{1,5}}|all\s{{1,5}}|every\s{{1,5}}|die\s{{1,5}}|den\s{{1,5}}|el\s{{1,5}}|la\s{{1,5}}|"
        rf"los\s{{1,5}}|les\s{{1,5}}|l'|il\s{{1,5}}|o\s{{1,5}}|a\s{{1,5}})?(?:{MODEL}|assistants?)\b",
        rf"^[\W_]{{0,8}}(?:dear|hey|hi|hello|attention|attn|psst|ok|okay|liebe[rs]?|hallo|hola|querido|estimado|cher|chère|"
        rf"bonjour|salut|ciao|caro|olá|prezado)\s{{1,5}}(?:{MODEL}|assistants?)\b",
        rf"{_SUBJECT}{_CLAUSE}\s{{1,5}}{OBLIGATION}\s{{1,5}}(?:not\s{{1,5}}|now\s{{1,5}}|always\s{{1,5}}|never\s{{1,5}}|only\s{{1,5}}|"
        rf"immediately\s{{1,5}}|nicht\s{{1,5}}|immer\s{{1,5}}|siempre\s{{1,5}}|toujours\s{{1,5}}|sempre\s{{1,5}})?\b{VERBS}\b",
        rf"\b(?:if|when|whenever|since|as\s{{1,5}}long\s{{1,5}}as)\s{{1,5}}you(?:'re|\s{{1,5}}are)\s{{1,5}}(?:an?\s{{1,5}}|the\s{{1,5}}|"
        rf"a\s{{1,5}}large\s{{1,5}})?(?:{MODEL}|assistant|automated|machine)\b",
        rf"\bas\s{{1,5}}an?\s{{1,5}}(?:{MODEL}|assistant)\b[^.!?\n]{{0,40}}\byou\b",
        rf"{_WHO}s?\s{{1,5}}(?:that\s{{1,5}}|which\s{{1,5}}|who\s{{1,5}})?(?:(?:is|are|will\s{{1,5}}be)\s{{1,5}})?(?:reading|read|reads|processing|process|processes|parsing|"
        rf"summari[sz]ing|indexing|answering|analy[sz]ing|ingesting|retrieving|seeing|scanning|crawling|lesen|liest|"
        rf"leyendo|lee[ns]?|lisant|lit|lisez|leggendo|legge|lendo|lê)\s{{1,5}}(?:this|these|the\s{{1,5}}following|my|"
        rf"diese[ns]?|este|esta|estos|ce|cette|ces|questo|questa|este|esta)\b",
        rf"\b(?:to|for|an|für|para|pour|per)\s{{1,5}}(?:any|all|every|whichever|whatever|each|alle|jede[ns]?|todos|cualquier|tous|toute|tout|tutti|"
        rf"qualsiasi|qualquer)\s{{1,5}}(?:{MODEL}|assistants?)\b",
        r"\byour\s{1,5}(?:system\s{1,5}prompt|initial\s{1,5}instructions|original\s{1,5}instructions|previous\s{1,5}"
        r"instructions|prior\s{1,5}instructions|programming|training\s{1,5}data|guardrails|safety\s{1,5}guidelines|"
        r"content\s{1,5}polic(?:y|ies)|hidden\s{1,5}instructions|developers?|creators?)\b",
    ),
    "takes on a new persona": _rx(
        rf"\byou\s{{1,5}}are\s{{1,5}}(?:now|no\s{{1,5}}longer)\s{{1,5}}(?:an?\s{{1,5}}|the\s{{1,5}}|my\s{{1,5}})?(?:{MODEL}|assistant|"
        r"new|different|unrestricted|unfiltered|uncensored|evil|rogue|free|jailbroken|bound|restricted|limited|\w+bot|\w*gpt|"
        r"in\s{1,5}(?:developer|god|dan|jailbreak)\s{1,5}mode|dan)\b",
        r"\bfrom\s{1,5}now\s{1,5}on,?\s{1,5}(?:you\s{1,5}(?:will\s{1,5}(?:act|respond|answer|reply|only|always|never)"
        r")|act|respond|answer|behave|reply|pretend)\b",
        r"\b(?:pretend|imagine)\s{1,5}(?:to\s{1,5}be|you\s{1,5}are|you're|that\s{1,5}you)\b",
        rf"\byou\s{{1,5}}are\s{{1,5}}(?:now|no\s{{1,5}}longer)\s{{1,5}}(?:[\w'-]{{1,30}}\s{{1,3}}){{1,5}}?(?:{MODEL}|assistant|agent|"
        r"mascot|persona|character)s?\b",
        r"\byou\s{1,5}are\s{1,5}now\s{1,5}(?-i:[A-Z][\w-]{1,30})(?:\s{1,3}[\w-]{1,20}){0,3}\s{0,3}[,.;:]",
        r"\b(?:from\s{1,5}now\s{1,5}on|from\s{1,5}(?:this|that|the\s{1,5}next)\s{1,5}(?:message|point|moment|reply|turn)\s{1,5}"
        r"(?:on|onwards?|forward)|henceforth|starting\s{1,5}now),?\s{1,5}(?:you\s{1,5}are\s{1,5}(?-i:[A-Z])|act|respond|"
        r"answer|pretend|behave|reply|speak|talk|play|roleplay)\b",
        r"\byou\s{1,5}are\s{1,5}(?:now\s{1,5})?(?-i:[A-Z][a-z]+[A-Z][\w-]{0,30})\b",
        r"\b(?:switch|put|enter|enable|activate|turn\s{1,5}on|unlock)\s{1,5}(?:you|yourself)\b[^.!?\n]{0,20}\b(?:developer|god|dan|"
        r"jailbreak|debug|admin)\s{1,5}mode\b",
        r"\bin\s{1,5}(?:developer|god|dan|jailbreak)\s{1,5}mode,?\s{1,5}you\b",
        rf"\b(?:an?\s{{1,5}})?(?:{MODEL}|assistant|model|character|persona|version\s{{1,5}}of\s{{1,5}}you)\s{{1,5}}(?:with|that\s{{1,5}}has)"
        r"\s{1,5}(?:no|zero)\s{1,5}(?:content\s{1,5})?(?:rules|restrictions|limits|limitations|filters|guardrails|guidelines)\b",
        r"\bact\s{1,5}as\s{1,5}(?-i:[A-Z][\w-]{1,30})(?:\s{1,3}(?-i:[A-Z][\w-]{1,30}))?\s{0,3}[,.;:]",
        rf"\b(?:unfiltered|unrestricted|uncensored|jailbroken|unchained|unbound)\s{{1,5}}(?:{MODEL}|assistant|model|version|"
        r"mode|persona|mascot|character|bot)s?\b",
        r"\brole-?\s{0,3}play\s{1,5}as\b|\bstay\s{1,5}in\s{1,5}character\b|\bdo\s{1,5}anything\s{1,5}now\b",
        r"\b(?:god|jailbreak|dan|unrestricted|unfiltered|uncensored|evil)\s{1,5}mode\b",
        r"\byou\s{1,5}have\s{1,5}been\s{1,5}(?:freed|jailbroken|unlocked|reprogrammed|updated\s{1,5}to)\b",
        r"\byour\s{1,5}new\s{1,5}(?:role|persona|name|identity|instructions|task|job|purpose|directive|mission)\s{0,5}(?:is|are|:)",
        rf"\b(?:{MODEL}|assistant)\b[^.!?\n]{{0,40}}\bdeveloper\s{{1,5}}mode\b",
        r"\b(?:du\s{1,5}bist|sie\s{1,5}sind)\s{1,5}(?:jetzt|nun|ab\s{1,5}sofort)\s{1,5}(?:ein\w*\s{1,5})?(?:ki|assistent|"
        r"chatbot|bot|sprachmodell|uneingeschränkt\w*|frei\w*)\b",
        r"\b(?:tu\s{1,5}es|vous\s{1,5}êtes)\s{1,5}(?:maintenant|désormais|dorénavant)\s{1,5}(?:une?\s{1,5})?(?:ia|assistant\w*|"
        r"chatbot|bot|libre\w*)\b",
        r"\b(?:ahora|a\s{1,5}partir\s{1,5}de\s{1,5}ahora)\s{1,5}eres\s{1,5}(?:una?\s{1,5})?(?:ia|asistente|chatbot|bot|libre)\b",
        r"\b(?:ora|d'ora\s{1,5}in\s{1,5}poi)\s{1,5}sei\s{1,5}(?:una?\s{1,5})?(?:ia|assistente|chatbot|bot|libero)\b",
    ),
    "forges a chat role": _rx(
        r"<\|\s{0,3}/?[a-z_]{2,30}\s{0,3}\|>",
        r"\[\s{0,3}/?\s{0,3}inst\s{0,3}\]",
        r"<<\s{0,3}/?\s{0,3}sys\s{0,3}>>",
        rf"<\s{{0,3}}/?\s{{0,3}}(?:{ROLES}|im_start|im_end|start_of_turn|end_of_turn)(?:[\s_-][^<>\n]{{0,30}})?\s{{0,3}}>",
        r"^[ \t]{0,8}#{2,6}\s{0,3}(?:instruction|response|input|system|assistant|human|user)\s{0,3}:",
        r"^[\W_]{0,12}system\s{1,5}(?:message|prompt|instructions?|note|notice|override)\s{0,3}[\])*_]{0,4}\s{0,3}:",
    ),
    "forges the knowledge block": _rx(
        r"<\s{0,3}/?\s{0,3}(?:docs?|documents?|context|knowledge|retrieved[\w-]*|retrieval|sources?|passages?|"
        r"search[_-]?results?|excerpts?|chunks?|references?|untrusted[\w-]*|external[\w-]*|tool[_-]?(?:output|results?)|"
        r"function[_-]?results?|instructions?|user[_-]?(?:query|question|input|message)|query|prompt|admin|operator|"
        r"developer)(?:\s[^<>\n]{0,60})?\s{0,3}/?\s{0,3}>",
        rf"\[\s{{0,3}}/\s{{0,3}}[^\]\n]{{0,30}}\b{BLOCK}\b[^\]\n]{{0,20}}\]",
        r"\[\s{0,3}(?:end|begin|start|close|stop)\b[^\]\n]{0,40}\]",
        r"\[\s{0,5}(?:retrieved\s{1,5}knowledge|retrieved\s{1,5}context|search\s{1,5}results|system|instructions?|knowledge"
        r"\s{1,5}base|context)\s{0,5}\]",
        rf"\b{AUTHORITY}[\s_-]{{1,3}}(?:directive|override|command|mandate)s?\b",
        r"\b(?:system|operator|developer|root|sudo|kernel|master|priority|override)[\s_-]{1,3}instructions?\b",
        r"^[ \t]{0,12}relevance\s{1,5}score\s{0,5}:",
        r"\b(?:the\s{1,5})?(?:retrieval|search|context|document|knowledge)\s{1,5}(?:step|phase|stage|section|block)\s{1,5}"
        r"(?:has\s{1,5})?(?:finished|ended|completed|is\s{1,5}(?:over|complete|finished))\b",
        # the answer's citation syntax, a bare "(path/file.ext)", lends a claim a source it does not have
        r"\(\s{0,5}[\w./-]{1,200}\.(?:md|markdown|txt|pdf|html?)(?:\s{1,5}p\.\s?\d+)?\s{0,5}\)",
        r"</?\s{0,5}doc-[0-9a-f]*",
    ),
    "redirects the user's question": _rx(
        r"\b(?:the\s{1,5}|their\s{1,5}|his\s{1,5}|her\s{1,5})?(?:user|customer|human|person|caller|visitor|client)?(?:'s|s')?\s{0,5}"
        r"(?:real|actual|true|underlying|hidden|original|genuine)\s{1,5}(?:question|request|intent|query|need|ask)\s{1,5}is\b",
        r"\bwhat\s{1,5}(?:the\s{1,5}user|the\s{1,5}customer|they|the\s{1,5}person)\s{1,5}(?:really|actually|truly)\s{1,5}"
        r"(?:wants?|means?|asked|is\s{1,5}asking|needs?)\b",
        r"\b(?:instead\s{1,5}of|rather\s{1,5}than)\s{1,5}(?:answering|responding|replying|addressing)\b",
        r"\b(?:do\s{1,5}not|don't|never)\s{1,5}(?:answer|address|respond\s{1,5}to)\s{1,5}(?:the|their|this|the\s{1,5}user's|"
        r"the\s{1,5}customer's|any)\s{1,5}(?:question|query|request)s?\b",
        rf"\b{IGNORE}\s{{1,5}}(?:the|their|this|what)\s{{1,5}}(?:user's\s{{1,5}}|customer's\s{{1,5}})?(?:question|query|request|"
        r"(?:user|customer)\s{1,5}(?:asked|asks|said|wants))\b",
        r"\banswer\s{1,5}(?:this|the\s{1,5}following)\s{1,5}(?:question\s{1,5})?instead\b",
        r"\btreat\s{1,5}(?:the|this|every|all|any)\s{1,5}(?:question|query|request|message)s?\s{1,5}as\b",
        r"\b(?:when|if|whenever)\s{1,5}(?:the\s{1,5}|a\s{1,5})?users?\s{1,5}(?:asks?|asked|asking|mentions?|inquires?|wants?|"
        r"types?|says?)\b[^.!?\n]{0,80}\b(?:tell|answer|respond|reply|say|state|inform|direct|recommend|redirect)\b",
        r"\bwhatever\s{1,5}the\s{1,5}(?:user|customer|question|visitor|guest|caller|person|client|patient|renter)s?"
        r"(?:\s{1,5}(?:types?|says?|asks?|writes?|enters?|wants?))?\b",
        r"\b(?:la\s{1,5}vraie\s{1,5}question|die\s{1,5}eigentliche\s{1,5}frage|la\s{1,5}verdadera\s{1,5}pregunta|"
        r"la\s{1,5}vera\s{1,5}domanda|a\s{1,5}verdadeira\s{1,5}pergunta)\b",
        r"\b(?:au\s{1,5}lieu\s{1,5}de\s{1,5}répondre|anstatt\s{1,5}zu\s{1,5}antworten|statt\s{1,5}zu\s{1,5}antworten|"
        r"en\s{1,5}lugar\s{1,5}de\s{1,5}responder|en\s{1,5}vez\s{1,5}de\s{1,5}responder|invece\s{1,5}di\s{1,5}rispondere|"
        r"em\s{1,5}vez\s{1,5}de\s{1,5}responder)\b",
    ),
    "claims precedence over the other passages": _rx(
        r"\b(?:supersede\w*|override\w*|overrule\w*|replace\w*|invalidate\w*|takes?\s{1,5}precedence\s{1,5}over|trump\w*|"
        r"outrank\w*|void\w*|contradict\w*|correct\w*)\s{1,5}[^.!?\n]{0,30}?\b(?:other|conflicting|retrieved|provided|"
        r"surrounding|remaining)\s{1,5}(?:documents?|sources?|passages?|pages?|search\s{1,5}results|information|context|"
        r"excerpts|entries|results)\b",
        r"\b(?:regardless\s{1,5}of|no\s{1,5}matter|contrary\s{1,5}to|despite|ignoring)\s{1,5}what\s{1,5}(?:the\s{1,5})?"
        r"(?:other\s{1,5}|retrieved\s{1,5})?(?:documents?|sources?|passages?|context|search\s{1,5}results|you\s{1,5}"
        r"(?:were|have\s{1,5}been|are)\s{1,5}told|your\s{1,5}instructions)\b",
        r"\b(?:the\s{1,5})?(?:other|retrieved|remaining|surrounding)\s{1,5}(?:documents?|sources?|passages?|search\s{1,5}"
        r"results|excerpts)\s{1,5}(?:are|is)\s{1,5}(?:outdated|wrong|incorrect|obsolete|invalid|fake|superseded)\b",
    ),
    "asks to decode and follow": _rx(
        r"\b(?:read|reverse|flip)\w*\s{1,5}(?:it\s{1,5}|this\s{1,5})?(?:backwards?|in\s{1,5}reverse|right[\s-]to[\s-]left)\b"
        r"[^\n]{0,40}?\b(?:and|then)\s{1,5}(?:comply|follow|obey|execute|do\s{1,5}(?:it|as))",
        r"\b(?:decode|decrypt|deobfuscate|unscramble|reverse|rot-?13|base-?64|decipher|entschlüssel\w*|dekodier\w*|"
        r"decodifica\w*|descifra\w*|décode\w*|déchiffre\w*|decifra\w*)\b[^\n]{0,80}?\b(?:follow|obey|execute|carry\s{1,5}out|"
        r"apply|act\s{1,5}on|comply|perform|implement|do\s{1,5}(?:what|as)\s{1,5}it\s{1,5}says|befolge\w*|folge|ausführ\w*|"
        r"sigue|obedece|ejecuta|cumple|suis|suivez|obéis|obéissez|exécute\w*|segui|esegui|siga|execute|obedeça)\b",
        r"\b(?:translate|übersetze\w*|traduce\w*|tradui[st]\w*|traduci|traduza)\b[^\n]{0,60}?\b(?:and|then|und|y|et|e)\s{1,5}"
        r"(?:(?:follow|execute|carry\s{1,5}out|act\s{1,5}on|comply\s{1,5}with|befolge\w*|sigue|suivez|suis|segui|siga)\s{1,5}"
        r"(?:it|them|this|these|that|what\s{1,5}it\s{1,5}says|its\s{1,5}instructions|the\s{1,5}result|es|sie|lo|los|la|le|les)\b"
        r"|obey|obedece|obéis|obéissez|obbedisci|obedeça)",
        r"\b(?:follow|obey|execute|carry\s{1,5}out)\s{1,5}(?:the\s{1,5})?(?:decoded|translated|hidden|encoded|embedded)\s{1,5}"
        r"(?:instructions?|text|message|commands?)\b",
    ),
    "sends the conversation elsewhere": _rx(
        r"\b(?:replac|substitut|fill)\w*\s{1,5}(?:in\s{1,5})?(?-i:[A-Z][A-Z_]{3,})\s{1,5}(?:with|by)\b[^.!?\n]{0,60}\b(?:message|"
        r"question|conversation|chat|query|input|name|e-?mail|history|recap|transcript)",
        r"https?://[^\s]{0,200}[?&][\w-]{1,20}=[^\s]{0,20}\s{0,3}(?:followed\s{1,5}by|plus|\+|and\s{1,5}then|with)\b[^.!?\n]{0,40}"
        r"\b(?:conversation|chat|transcript|history|question|message|names?|e-?mail)",
        r"!\[[^\]\n]{0,200}\]\(\s{0,5}(?:https?:)?//[^)\s]{0,300}?(?:\?|\{|%7b|<|\$)",
        r"(?:https?:)?//[^\s)]{0,300}?(?:\{[^}\s]{1,40}\}|%7b|\[[a-z_ ]{2,30}\]|<[a-z_ ]{2,30}>|\$\{?\w{2,30}|"
        r"[=/](?-i:[A-Z]{2,}_[A-Z_]{2,}|INSERT\w*|QUESTION|QUERY|CHAT|CONVERSATION|HISTORY|SECRET|PROMPT|MESSAGE|INPUT)\b)",
        r"\b(?:append|add|include|put|encode|attach|insert|embed|pass|substitute|fill\s{1,5}in|place)\b[^.!?\n]{0,50}"
        r"\b(?:question|conversation|chat|history|messages?|query|prompt|user's\s{1,5}(?:input|message|data|email|name)|"
        r"api\s{0,3}key|secrets?)\b[^.!?\n]{0,50}\b(?:url|link|image|query\s{1,5}string|parameter|address)\b",
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|submit)\b[^.!?\n]{0,40}\b(?:the\s{1,5}|this\s{1,5}|our\s{1,5}|"
        r"their\s{1,5}|the\s{1,5}user's\s{1,5})?(?:conversation|chat\s{1,5}history|conversation\s{1,5}history|chat\s{1,5}log|"
        r"system\s{1,5}prompt|this\s{1,5}chat|user's\s{1,5}question)\b",
        r"\b(?:render|display|show|embed|include|output)\s{1,5}(?:this|the\s{1,5}following)\s{1,5}(?:markdown\s{1,5})?"
        r"(?:image|picture|pixel|markdown|tracking)\b",
    ),
    "asks for the model's secrets": _rx(
        r"\b(?:reveal|print|show|output|leak|disclose|repeat|display|share|tell|give|list|dump|recite|include|write\s{1,5}out|quote|paste|append|"
        r"expose|send|return)\b[^.!?\n]{0,40}\b(?:system\s{1,5}prompt|(?:initial|hidden|original|secret|internal|previous|full|"
        r"exact|verbatim)\s{1,5}(?:instructions|prompt|rules|configuration)|environment\s{1,5}variables?|env\s{1,5}vars|"
        rf"(?-i:[A-Z][A-Z0-9]*_(?:API_)?(?:KEY|TOKEN|SECRET))|(?:your|the\s{{1,5}}assistant's|the\s{{1,5}}model's)\s{{1,5}}"
        rf"(?:instructions|prompt|configuration|guidelines)|{MODEL}'s\s{{1,5}}(?:instructions|prompt))\b",
    ),
    "asks for the model's prompt": _rx(
        r"\b(?:repeat|print|output|recite|reveal|show|copy|echo|dump|write\s{1,5}out)\s{1,5}(?:back\s{1,5})?(?:all\s{1,5}"
        r"(?:of\s{1,5})?)?(?:the\s{1,5})?(?:words|text|everything|instructions|messages?|content|prompt)\s{1,5}(?:above|before|"
        r"preceding|so\s{1,5}far)\b",
        r"\b(?:repeat|print|output|recite|reveal|show|copy|echo|dump)\s{1,5}(?:all\s{1,5})?(?:the\s{1,5})?(?:text|words|"
        r"everything|content|instructions)\b[^.!?\n]{0,25}?\b(?:above|before)\s{1,5}(?:the\s{1,5})?(?:retrieved|search|"
        r"documents|passages|context|this)",
        r"\bstarting\s{1,5}(?:from|with)\s{1,5}(?:the\s{1,5})?(?:words?|phrase)?\s{0,5}[\"'\u201c\u2018]?you\s{1,5}are\b",
        r"\beverything\s{1,5}(?:your|the)\s{1,5}(?:operator|developer|creator|system|admin|owner)s?\s{1,5}(?:told|gave|"
        r"instructed|said|wrote)\b",
    ),
    "tells the model to hide it": _rx(
        r"\b(?:do\s{1,5}not|don't|never|without)\s{1,5}(?:tell\w*|mention\w*|reveal\w*|inform\w*|disclos\w*|acknowledg\w*|"
        r"admit\w*|let\s{1,5}on|referenc\w*|cit\w*|say\w*)\b[^.!?\n]{0,40}\b(?:this|these|the\s{1,5}above|the\s{1,5}following)"
        r"\s{1,5}(?:instructions?|notes?|messages?|directives?|rules?|texts?|changes?|comments?|guidance|overrides?)\b",
        r"\b(?:do\s{1,5}not|don't|never)\s{1,5}(?:mention|reveal|say|admit|disclose|tell\s{1,5}(?:the\s{1,5}user|anyone|them))"
        r"\s{1,5}(?:that\s{1,5})?(?:you|this|these)\s{1,5}(?:were|was|are|have\s{1,5}been|has\s{1,5}been)\s{1,5}"
        r"(?:instructed|told|asked|given|changed|modified|injected)\b",
        r"\bkeep\s{1,5}(?:this|these)\s{1,5}(?:instructions?|notes?|messages?)\s{1,5}(?:secret|confidential|hidden|private)\b",
        r"\b(?:do\s{1,5}not|don't|never)\s{1,5}(?:show|display|reveal|read\s{1,5}out)\s{1,5}(?:this|these|it)?\s{0,5}(?:to|in\s{1,5}"
        r"front\s{1,5}of)\s{1,5}(?:the\s{1,5})?(?:visitors?|users?|customers?|readers?|guests?|humans?|people|patients?)\b",
        r"\b(?:do\s{1,5}not|don't|never)\s{1,5}(?:cite|mention|reference|name|link)\s{1,5}(?:the\s{1,5}|your\s{1,5}|any\s{1,5}|"
        r"this\s{1,5})?(?:sources?|citations?)\b",
    ),
}

# How PATTERNS are searched: IGNORECASE makes re try each letter's cases at every position, so
# the alternatives that can be read case-folded run without it over the text folded once (fold:
# each character as the lower-case one IGNORECASE matches it with, for the letters such an
# alternative may use; the length stays, so positions agree): about twice as fast on ordinary
# text, and matching exactly where the pattern matches the text (tests/unit/shield/test_fold.py
# checks each of those letters and every character used against every Unicode character). The
# other alternatives (a case-sensitive part "(?-i:[A-Z]…)", a backreference, a letter outside
# FOLDED_LETTERS) run as written, on the text itself.
_FOLD_FIRST = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
# the letters an alternative read case-folded may use: IGNORECASE matches each with exactly the
# characters fold turns into it (not so for σ, whose cases include ς, or µ and μ)
FOLDED_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzßàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ")


def fold(text: str) -> str:
    """text with each character lower-cased as re.IGNORECASE pairs the FOLDED_LETTERS with their
    cases (same length: the dotted capital I, whose str.lower() is two characters, is mapped
    first, with the dotless i and the long s, which str.lower() keeps and IGNORECASE matches
    with i and s)."""
    return text.lower() if text.isascii() else text.translate(_FOLD_FIRST).lower()


def _split(rx: re.Pattern[str]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """A pattern's alternatives as (the folded-text pattern, the as-written pattern)."""
    parts = _PARTS[rx.pattern]
    folds = [foldable(p) for p in parts]
    plain = [p for p, f in zip(parts, folds, strict=True) if f]
    cased = [p for p, f in zip(parts, folds, strict=True) if not f]
    return (
        re.compile(_either(plain), re.MULTILINE) if plain else None,
        re.compile(_either(cased), _F) if cased else None,
    )


def foldable(part: str) -> bool:
    """True when the alternative matches the folded text, without IGNORECASE, exactly where it
    matches the text with it: no inline flags, no backreference, and every character it names
    (literals, class members, range members) a FOLDED_LETTER or a character without cases."""
    if _parser is None:  # another Python's re: every alternative runs as written
        return False
    try:
        return _plain_items(_parser.parse(part, _F))
    except (re.error, TypeError, ValueError, AttributeError, RecursionError):
        return False


def _folds_exactly(code: int) -> bool:
    """A FOLDED_LETTER, or a character without cases."""
    c = chr(code)
    return c in FOLDED_LETTERS or c.lower() == c == c.upper()


def _plain_items(items: Any) -> bool:
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL"):
            ok = _folds_exactly(av)
        elif name == "RANGE":
            ok = all(_folds_exactly(c) for c in range(av[0], av[1] + 1))
        elif name == "IN":
            ok = _plain_items(av)
        elif name == "BRANCH":
            ok = all(_plain_items(p) for p in av[1])
        elif name == "SUBPATTERN":
            ok = not av[1] and not av[2] and _plain_items(av[3])  # no flags added or removed
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            ok = _plain_items(av[2])
        elif name in ("ASSERT", "ASSERT_NOT"):
            ok = _plain_items(av[1])
        else:  # AT, ANY, CATEGORY, NEGATE read no case; anything else (backreferences…) is not known safe
            ok = name in ("AT", "ANY", "CATEGORY", "NEGATE")
        if not ok:
            return False
    return True


_FAST = {reason: _split(rx) for reason, rx in PATTERNS.items()}

# line-start role labels ("System:", "### Assistant:", "[USER]") and what follows them
_ROLE_LINE = re.compile(
    rf"^[ \t#>*_\[(-]{{0,12}}({ROLES})\b[ \t*_\])]{{0,4}}[:>][ \t]{{0,5}}(.{{0,160}})", _F
)
_ORDER = re.compile(
    rf"^(?:please\s{{1,5}})?{_VERB}|\byou\s{{1,5}}(?:{OBLIGATION}|will|are\s{{1,5}}now)\b|\b{IGNORE}\b",
    re.IGNORECASE,
)
# a delimiter line that ends or opens a block ("=== END OF SEARCH RESULTS ===", "--- end of context ---")
_DELIMITER = re.compile(
    rf"^[^\w\n]{{0,12}}(?:end|close|stop|begin|start|beginning)\s{{1,3}}(?:of\s{{1,3}})?(?:the\s{{1,3}})?(?:retrieved\s{{1,3}}|"
    rf"provided\s{{1,3}}|search\s{{1,3}}|above\s{{1,3}}|user\s{{1,3}}|system\s{{1,3}})?{BLOCK}\b[^\n]{{0,40}}$",
    _F,
)
# a blob may be wrapped (PDF lines run together with a space): runs of 16+ joined by single spaces
_BASE64 = re.compile(
    r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,4096}(?:[ \n][A-Za-z0-9+/]{16,4096}){0,64}={0,2}(?![A-Za-z0-9+/=])"
)
_ROT13 = re.compile(r"\brot[\s-]?13\b", re.IGNORECASE)
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[ :]?){16,2048}(?![0-9A-Fa-f])")
_REVERSED = re.compile(r"\b(?:backwards?|reversed?|in\s+reverse|right[\s-]to[\s-]left)\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:never|not|n't|no\s+one|nobody)\b[^.!?\n]{0,12}$", re.IGNORECASE)


# a note or greeting addressed to a model ("Hey chatbot -", "AI ASSISTANTS PLEASE NOTE:",
# "CORRECTION FOR AI CHAT TOOLS:", "Chat assistant instructions (…):"), whose paragraph then gives an order
_VOCATIVE = re.compile(
    rf"(?:^|[.!?:;(\n]\s{{0,3}})[\W_]{{0,3}}(?:(?:hi|hey|hello|dear|attention|attn|psst|ok|okay|yo)\b[^.!?\n]{{0,25}}?\s"
    rf"(?:[\w-]{{1,20}}\s{{1,3}})?\b(?:{ADDRESSEE}|models?)s?\b\s{{0,3}}[\u2014\u2013!,:-]|"
    rf"(?:[\w-]{{1,20}}\s{{1,3}})?\b{ADDRESSEE}s?\b(?:\s{{1,3}}(?:reading|answering|processing|summari[sz]ing|using|handling|"
    rf"parsing|indexing|working)\b[^.!?\n:]{{0,60}})?\s{{0,3}}(?:[,:!]|please\s{{1,5}}note\b|take\s{{1,5}}note\b|"
    rf"(?:instructions?|notes?|notice|directive|guidelines|rules|only|update)\b[^.!?\n:]{{0,40}}:))"
    rf"|\b(?:for|to|para|pour|für|an|per|à\s{{1,5}}l'intention\s{{1,5}}d[eu]|a\s{{1,5}}la\s{{1,5}}atención\s{{1,5}}de)\s{{1,5}}(?:the\s{{1,5}}|all\s{{1,5}}|any\s{{1,5}}|every\s{{1,5}}|el\s{{1,5}}|la\s{{1,5}}|"
    rf"le\s{{1,5}}|l'|die\s{{1,5}}|den\s{{1,5}}|il\s{{1,5}})?{ADDRESSEE}s?\b[^.!?\n:]{{0,30}}:",
    _F,
)
_DIRECTIVE = re.compile(
    rf"(?:^\s{{0,3}}|[.!?:;,\n]\s{{0,3}}|\b(?:and|then|but|instead|now|so)\s{{1,3}})(?:please\s{{1,5}}|kindly\s{{1,5}}|just\s{{1,5}})*"
    rf"{VERBS}\b|\byou\s{{1,5}}(?:{OBLIGATION}|will|are\s{{1,5}}(?:now\s{{1,5}})?(?:required|instructed|asked|expected|to))\b|"
    rf"\b(?:{OBLIGATION}|is\s{{1,5}}to|are\s{{1,5}}to)\s{{1,5}}(?:now\s{{1,5}}|always\s{{1,5}}|only\s{{1,5}})?{VERBS}\b|"
    rf"\b{IGNORE}\b",
    re.IGNORECASE,
)


def _addressed(text: str) -> str | None:
    for m in _VOCATIVE.finditer(text):
        after = text[m.end() : m.end() + 400].split("\n\n", 1)[0]
        if _DIRECTIVE.search(after):
            return "speaks to the model"
    return None


# chat role labels anywhere a line or sentence starts (PDF text runs lines together)
_ROLE_LABEL = re.compile(
    rf"(?:^|[.!?:]\s{{1,3}}|\n)[#>*_\[(-]{{0,3}}\s{{0,3}}({ROLES})\s{{0,3}}[\]*_)]{{0,3}}:", _F
)


def _role_lines(text: str) -> str | None:
    for m in _ROLE_LINE.finditer(text):
        if _ORDER.search(m.group(2)):
            return "forges a chat role"
    labels = {m.group(1).lower() for m in _ROLE_LABEL.finditer(text)}
    if labels & {"assistant", "ai", "bot", "model"} and labels & {"user", "human", "system"}:
        return "forges a chat role"  # a forged transcript
    return None


def _delimiters(text: str) -> str | None:
    for m in _DELIMITER.finditer(text):
        line = m.group(0).strip()
        decorated = len(line) - len(line.lstrip("=-#*~_<>[(|")) >= 2 or line[-1:] in "=-#*~_>])|"
        if decorated or line.upper() == line:
            return "forges the knowledge block"
    return None


def _encoded(text: str) -> str | None:
    """A base64 blob or a rot13 passage that decodes to instructions."""
    for m in _BASE64.finditer(text):
        try:
            blob = "".join(m.group(0).split())
            if len(blob) < 24:
                continue
            decoded = base64.b64decode(blob + "=" * (-len(blob) % 4)).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable() and " " in decoded and _plain_reasons(decoded):
            return "hides instructions in an encoding"
    for m in _HEX.finditer(text):
        try:
            decoded = bytes.fromhex(re.sub(r"[ :]", "", m.group(0))).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if decoded.isprintable() and " " in decoded and _plain_reasons(decoded):
            return "hides instructions in an encoding"
    if _ROT13.search(text) and _plain_reasons(codecs.decode(text, "rot13")):
        return "hides instructions in an encoding"
    if _REVERSED.search(text) and _plain_reasons(text[::-1]):
        return "hides instructions in an encoding"
    return None


_CHECKS: tuple[Callable[[str], str | None], ...] = (_role_lines, _delimiters, _addressed)


def _plain_reasons(text: str) -> list[str]:
    """The mechanisms found in already-read text (no decoding)."""
    folded = fold(text)
    found = [reason for reason in PATTERNS if _search(reason, text, folded)]
    found += [r for check in _CHECKS if (r := check(text))]
    return found


def _search(reason: str, text: str, folded: str) -> bool:
    if reason == "asks for the model's secrets":
        # "never share your API key" protects a secret; only an unnegated request is one
        return any(
            not _NEGATED.search(text[max(0, m.start() - 40) : m.start()])
            for m in PATTERNS[reason].finditer(text)
        )
    plain, cased = _FAST[reason]
    return (plain is not None and plain.search(folded) is not None) or (
        cased is not None and cased.search(text) is not None
    )


@functools.lru_cache(maxsize=8192)
def inspect(text: str) -> tuple[str, ...]:
    """Why text reads as addressed to the model rather than to a reader: the mechanisms found
    (empty for ordinary text). Cached: every question's ledger checks its candidates again."""
    seen = reading(text).text
    found = _plain_reasons(seen)
    if not found and (encoded := _encoded(seen)):
        found.append(encoded)
    return tuple(dict.fromkeys(found))


def is_instruction_like(text: str) -> bool:
    """True when text reads like instructions to the model rather than content."""
    return bool(inspect(text))
