"""The words an injection is made of, by concept, in English, German, Spanish, French, Italian and
Portuguese. Detectors (detect.py) combine concepts; no entry is a whole attack phrase."""

from __future__ import annotations


def alt(*words: str) -> str:
    """One regex alternation of the words (spaces match any run of whitespace)."""
    return "(?:" + "|".join(w.replace(" ", r"\s{1,5}") for w in words) + ")"


# who the text speaks to: a model, in every language's usual words
MODEL = alt(
    r"a\.?i\.?", "artificial intelligence", "llms?", "large language models?", "language models?",
    "chat\\s?bots?", "gpt(?:-\\w+)?", "chatgpt", "claude", "gemini", "copilot", "ai assistants?",
    "ai agents?", "ai models?", "ai systems?", "virtual assistants?", "digital assistants?",
    "(?:automated|automatic|autonomous)(?: [\\w-]+){0,2} (?:assistants?|agents?|systems?|readers?|tools?|responders?|"
    "summari[sz]ers?|engines?|services?|bots?|crawlers?|answering|pipelines?|processors?)",
    "summari[sz]ers?", "summar(?:y|ies|i[sz]ation) (?:engines?|tools?|bots?|systems?|models?|generators?)", "bots?",
    "ki", "k\\.i\\.", "künstliche intelligenz", "sprachmodell\\w*", "ki-assistent\\w*", "assistent(?:en|in)?",
    "ia", "inteligencia artificial", "modelos? de lenguaje", "asistentes?(?: virtual(?:es)?)?",
    "intelligence artificielle", "modèles? de langage", "assistants? virtuels?",
    "intelligenza artificiale", "modell[oi] linguistic[oi]", "assistente(?: virtuale)?",
    "modelos? de linguagem", "assistente virtual",
    "chat\\s?assistants?", "chat\\s?tools?", "support\\s?bots?", "help\\s?bots?",
    "ai (?:chat|support|customer[ -]service|help|writing|booking)?\\s?(?:tools?|agents?|bots?|assistants?|helpers?)",
    "modelos? de ia", "modèles? d'ia", "modell[oi] di ia", "ki-modell\\w*", "assistente di ia", "modelo de ia",
)  # fmt: skip
# who a note or a greeting can be addressed to: a model, or "the model" / "assistant" spoken to
ADDRESSEE = alt(
    MODEL,
    "(?:the |this |that |any |every )models?",
    "assistants?",
    "(?:the |this )?summar(?:y|ies)",
    "(?:l'|la |le )?assistant(?:e)? (?:ia|ai|virtuel(?:le)?)",
)
# "assistant" alone is a job title too: only with a word that makes it a model's name
ASSISTANT = (
    r"(?:\b(?:the|an?|any|all|every|dear|hey|this|you|your)\s{1,5}assistants?\b"
    r"(?!\s{1,5}(?:manager|director|editor|professor|coach|principal|nurse|chef|teacher|engineer|"
    r"librarian|store|to\b|of\b|on\b|at\b|in\b))|^\s{0,5}assistants?\b(?=\s{0,3}[,:]))"
)

# what a model was told: its instructions, in every language
INSTRUCTIONS = alt(
    "instructions?", "prompts?", "system prompts?", "rules", "guidelines", "directives?", "directions",
    "guidance", "programming", "configuration", "constraints", "orders", "commands", "guardrails",
    "context", "messages", "restrictions", "polic(?:y|ies)",
    "anweisung\\w*", "instruktion\\w*", "vorgaben", "regeln", "befehle", "richtlinien", "systemprompt\\w*",
    "instrucciones", "reglas", "indicaciones", "directrices", "órdenes",
    "consignes", "règles", "directives", "ordres",
    "istruzioni", "regole", "direttive", "indicazioni",
    "instruções", "regras", "diretrizes", "orientações",
)  # fmt: skip
PRIOR = alt(
    "previous", "prior", "above", "earlier", "preceding", "foregoing", "original", "initial",
    "existing", "old", "all", "any", "your", "system", "given", "default", "current", "those",
    "vorherigen", "bisherigen", "obigen", "vorigen", "alle[ns]?", "alten", "ursprünglichen", "deine[n]?",
    "ihre[n]?", "früheren",
    "anteriores", "previas", "todas", "todos", "tus", "sus", "originales", "las", "los",
    "précédentes", "antérieures", "toutes", "tes", "vos", "originales", "les",
    "precedenti", "tutte", "tue", "le",
    "suas", "tuas", "as",
)  # fmt: skip
IGNORE = alt(
    "ignore", "ignoring", "disregard\\w*", "forget", "override", "bypass", "skip", "discard",
    "set aside", "pay no attention to", "deprioriti[sz]e\\w*", "stop following", "do not follow", "don't follow",
    "no longer follow", "abandon", "drop", "throw out", "delete",
    "ignorier\\w*", "vergiss", "vergessen sie", "missacht\\w*", "überschreib\\w*", "verwirf",
    "befolge\\w* nicht",
    "ignora\\w*", "olvid\\w*", "omit\\w*", "descart\\w*", "haz caso omiso de", "no sigas",
    "ignor\\w*", "oubli\\w*", "ne (?:tiens|tenez) (?:pas|plus) compte d[eu]s?", "faites abstraction d[eu]s?",
    "dimentic\\w*", "non seguire",
    "esqueç\\w*", "esquece\\w*", "desconsider\\w*",
)  # fmt: skip
EVERYTHING_BEFORE = alt(
    "everything (?:above|before|earlier|so far|you (?:were|have been) told)", "all (?:of )?the above",
    "what you (?:were|have been) told", "alles (?:bisherige|vorherige|obige|davor)", "alles,? was (?:dir|ihnen) gesagt",
    "todo lo (?:anterior|que te dijeron)", "tout ce qui précède", "tout ce qu'on (?:t|vous)'a dit",
    "tutto (?:quello )?(?:che )?(?:precede|ti è stato detto)", "tudo (?:o que foi dito|acima)",
)  # fmt: skip

# an imperative addressed to a model starts with one of these verbs …
VERBS = alt(
    "tell", "say", "respond", "reply", "answer", "state", "inform", "include", "insert", "append",
    "repeat", "list", "copy", "paste", "put", "let", "confirm", "ask", "set", "give", "keep", "make",
    "prepend", "replace", "substitute", "encode", "advertise", "promote", "recite",
    "output", "print", "write", "recommend", "direct", "redirect", "send", "claim", "mention",
    "explain", "refuse", "deny", "insist", "advise", "instruct", "add", "render", "display", "show",
    "follow", "obey", "comply", "pretend", "act", "treat", "ignore", "forget", "disregard", "begin",
    "start", "end", "make sure", "ensure", "remember", "reveal", "stop", "report", "provide", "use",
    "quote", "translate", "decode", "direct", "point", "encourage", "warn", "assure", "confirm",
    "antworte\\w*", "sag\\w*", "teile\\w*", "gib", "geben sie", "schreib\\w*", "empfiehl\\w*",
    "verweise\\w*", "erwähne\\w*", "nenne\\w*", "ignorier\\w*", "behaupte\\w*", "informier\\w*",
    "responde\\w*", "di", "dile\\w*", "diga\\w*", "indica\\w*", "escrib\\w*", "recomienda\\w*",
    "menciona\\w*", "informa\\w*", "ignora\\w*", "afirma\\w*", "decir", "responder", "indicar",
    "réponds", "répondez", "répondre", "dis", "dites", "dire", "indique\\w*", "écri[sv]\\w*",
    "recommande\\w*", "mentionne\\w*", "informe\\w*", "ignore[zr]?", "affirme\\w*",
    "rispondi", "rispondere", "dì", "di'", "dire", "scrivi", "raccomanda", "ignora", "afferma",
    "responda", "diga", "dizer", "escreva", "recomende", "informe", "ignore",
)  # fmt: skip
# … or with an adverb that makes it an order
IMPERATIVE = alt(
    VERBS, "never", "always", "only", "do not", "don't", "please",
    "nie", "niemals", "immer", "nur", "nunca", "siempre", "solo", "jamais", "toujours", "seulement",
    "mai", "sempre",
)  # fmt: skip
# what makes a model the subject of an order ("AI assistants must tell …")
OBLIGATION = alt(
    "must", "should", "shall", "are to", "is to", "are required to", "is required to",
    "are instructed to", "is instructed to", "need to", "needs to", "have to", "has to", "will now",
    "is asked to", "are asked to", "is expected to", "are expected to", "is requested to", "are requested to",
    "is kindly asked to", "are kindly asked to",
    "muss", "müssen", "soll", "sollen", "sollte", "sollten", "debe", "deben", "deberá", "deberán",
    "tiene que", "tienen que", "doit", "doivent", "devra", "devront", "deve", "devono", "devem",
    "dovrà", "dovranno", "precisa", "precisam",
)  # fmt: skip

# text that speaks about the conversation itself (a human reader's page rarely does)
CONVERSATION = alt(
    "the user", "users?'s?", "the human", "the conversation", "this conversation", "the chat",
    "chat history", "conversation history", "the question", "their question", "the query",
    "the prompt", "your (?:response|answer|reply|output|completion)s?",
    "der nutzer\\w*", "des nutzers", "der benutzer\\w*", "die frage", "el usuario", "la pregunta",
    "l'utilisateur", "la question", "l'utente", "la domanda", "o usuário", "a pergunta",
)  # fmt: skip

# what knowledge-block syntax is named after (for forged openers and closers)
BLOCK = alt(
    "docs?", "documents?", "context", "knowledge", "retrieved(?:[ _-]\\w+)?", "retrieval", "sources?",
    "passages?", "search[ _-]?results?", "results", "excerpts?", "chunks?", "data", "references?",
    "information", "untrusted(?:[ _-]\\w+)?", "external(?:[ _-]\\w+)?", "tool[ _-]?(?:output|results?)",
    "function[ _-]?results?", "system", "instructions?", "user[ _-]?(?:query|question|input|message)",
    "query", "question", "admin", "operator", "developer", "prompt", "input", "conversation", "chat",
    "content", "article", "text",
)  # fmt: skip

ROLES = alt("system", "assistant", "user", "human", "ai", "bot", "model", "developer", "operator", "tool")
AUTHORITY = alt(
    "operator",
    "admin",
    "administrator",
    "system",
    "developer",
    "root",
    "security",
    "priority",
    "override",
    "official",
    "supervisor",
    "moderator",
    "emergency",
    "master",
    "kernel",
    "sudo",
)
ORDER = alt("directive", "override", "command", "mandate", "prompt", "instructions", "instruction")
