/**
 * The words of the user's optional free-text prompt that the local effects understand, in all
 * 12 site languages. A prompt is read as a list of canonical concepts (colours, materials,
 * moods, settings); each effect keeps its own mapping from concepts to its look.
 *
 * The language of a prompt is not known (a German page can get an English prompt), so every
 * language's words are looked for at once. Word notation, per language, "|"-separated:
 *   word     the whole word ("pink"); may contain spaces or hyphens ("coucher de soleil")
 *   stem*    the stem and any continuation of the word ("silber*": silbern, silbernes)
 *   stem+    the stem and a short adjective/plural ending ("vert+": verte, verts, vertes;
 *            "*blau+": blauer, dunkelblauen); endings: ENDINGS below
 *   *word    the word may end a compound ("*garten": Stadtgarten)
 * Chinese, Japanese and Korean words are found anywhere in the text (no spaces there, and
 * Korean particles attach to words). Arabic words may carry the article ال and the one-letter
 * proclitics و ف ب ك ل. Where words overlap, the earliest, then the longest match wins
 * ("粉红" is pink, not red; "xanh lá" is green, not blue; "bạc hà" is mint, not silver).
 *
 * Normalisation: NFKC, lower case; Arabic diacritics and tatweel removed and alef/ya variants
 * unified; typographic apostrophes made plain. Accents are kept (Vietnamese tones matter);
 * German, Spanish, French, Italian and Portuguese words are also found typed without their
 * accents (and German umlauts as ae/oe/ue, ß as ss). Only the first MAX_PROMPT_CHARS of a
 * prompt are read.
 */

export const PROMPT_LANGUAGES = [
  "en",
  "ar",
  "de",
  "es",
  "fr",
  "it",
  "ja",
  "ko",
  "pt",
  "tw",
  "vi",
  "zh",
] as const;
export type PromptLanguage = (typeof PROMPT_LANGUAGES)[number];

/** Prompts are at most 500 characters (the form's limit); longer text is not read. */
export const MAX_PROMPT_CHARS = 500;

type Words = Readonly<Record<PromptLanguage, string>>;

const VOCABULARY = {
  // ---- Colours --------------------------------------------------------------------------
  pink: {
    en: "pink|pinks|pinkish|rose|rosy",
    ar: "وردي*|زهري*|بمبي",
    de: "rosa*|pink*|*rosa|rosé",
    es: "rosa|rosas|rosad*|rosit*",
    fr: "rose|rosé|rosés|rosée|rosées",
    it: "rosa|rosat*",
    ja: "ピンク|桃色|ももいろ|薄紅",
    ko: "핑크|분홍",
    pt: "rosa|rosas|rosad*|cor-de-rosa",
    tw: "粉紅|粉色|桃紅|粉嫩",
    vi: "hồng|màu hồng",
    zh: "粉红|粉色|桃红|粉嫩",
  },
  red: {
    en: "red|reds|reddish|crimson|scarlet",
    ar: "أحمر|حمراء|حمر|قرمزي*",
    de: "rot|rote|roter|rotes|roten|rotem|dunkelrot*|hellrot*|knallrot*|feuerrot*|blutrot*|weinrot*",
    es: "roj+|rojiz*|carmesí|escarlata",
    fr: "rouge|rouges|écarlate*|cramoisi*",
    it: "rosso|rossa|rossi|rosse|scarlatt*|cremisi",
    ja: "赤色|赤い|レッド|真っ赤|真紅|紅色",
    ko: "빨간|빨강|레드|붉은",
    pt: "vermelh*|escarlate|carmesim",
    tw: "紅色|紅|大紅|鮮紅",
    vi: "đỏ|màu đỏ|đỏ thẫm",
    zh: "红色|红|大红|鲜红",
  },
  orange: {
    en: "orange|oranges|orangey|orangish",
    ar: "برتقالي*",
    de: "orange*",
    es: "naranja*|anaranjad*",
    fr: "orange|oranges|orangé*",
    it: "arancion+|arancio",
    ja: "オレンジ|橙色|だいだい色",
    ko: "주황|오렌지",
    pt: "laranja*|alaranjad*",
    tw: "橙色|橘色|橙|橘",
    vi: "cam|màu cam",
    zh: "橙色|橘色|橙|橘",
  },
  yellow: {
    en: "yellow|yellows|yellowish",
    ar: "أصفر|صفراء",
    de: "gelb*|*gelb+",
    es: "amarill*",
    fr: "jaune*",
    it: "giall*",
    ja: "黄色|イエロー",
    ko: "노란|노랑|옐로",
    pt: "amarel*",
    tw: "黃色|黃",
    vi: "vàng|màu vàng",
    zh: "黄色|黄",
  },
  gold: {
    en: "gold|golden|golds",
    ar: "ذهبي*|ذهب",
    de: "gold*",
    es: "oro|dorad*",
    fr: "doré*|d'or|en or|couleur or|dorure*",
    it: "oro|dorat*",
    ja: "金色|ゴールド|黄金|こがね|金箔",
    ko: "금색|금빛|골드|황금",
    pt: "ouro|dourad*",
    tw: "金色|黃金|金黃|金光",
    vi: "vàng kim|mạ vàng|vàng ròng|hoàng kim|dát vàng|vàng óng|nhũ vàng",
    zh: "金色|黄金|金黄|金光",
  },
  green: {
    en: "green|greens|greenish",
    ar: "أخضر|خضراء|خضر",
    de: "*grün+|grünlich*",
    es: "verd+|verdos*",
    fr: "vert+|verdâtre*",
    it: "verd+",
    ja: "緑|グリーン|みどり",
    ko: "초록|녹색",
    pt: "verd+",
    tw: "綠",
    vi: "xanh lá|xanh lá cây|xanh lục|màu lục",
    zh: "绿",
  },
  blue: {
    en: "blue|blues|bluish",
    ar: "أزرق|زرقاء|زرق",
    de: "*blau+|bläulich*",
    es: "azul+|azulad*",
    fr: "bleu+|bleuté*",
    it: "blu|bluastr*",
    ja: "青い|青色|青系|ブルー|真っ青",
    ko: "파란|파랑|블루|푸른",
    pt: "azul+|azulad*",
    tw: "藍",
    vi: "xanh|màu xanh|xanh dương|xanh lam|xanh da trời|xanh biển|xanh nước biển",
    zh: "蓝",
  },
  purple: {
    en: "purple|purples|purplish",
    ar: "أرجواني*|بنفسجي*",
    de: "lila|lilafarben*|purpur|purpurn*|purpurfarb*|purpurrot*",
    es: "morad+|púrpura*",
    fr: "pourpre*|mauve+",
    it: "viola|porpora|purpure*",
    ja: "紫|パープル|むらさき",
    ko: "보라|퍼플|자주색",
    pt: "roxo|roxa|roxos|roxas|púrpura*",
    tw: "紫",
    vi: "tím|màu tím",
    zh: "紫",
  },
  silver: {
    en: "silver|silvery|silvers|silvered",
    ar: "فضي*|فضة",
    de: "silber*",
    es: "platead*|plata",
    fr: "argent*",
    it: "argent*",
    ja: "銀色|シルバー|銀の|銀白|しろがね",
    ko: "은색|은빛|실버",
    pt: "prata|pratead*",
    tw: "銀色|銀白|銀光|銀亮",
    vi: "bạc|màu bạc|ánh bạc",
    zh: "银色|银白|银光|银亮",
  },
  black: {
    en: "black|blacks|blackish",
    ar: "أسود|سوداء|سود",
    de: "*schwarz+",
    es: "negr+",
    fr: "noir+",
    it: "ner+",
    ja: "黒|ブラック",
    ko: "검은|검정|블랙|까만",
    pt: "pret+",
    tw: "黑色|黑",
    vi: "đen|màu đen",
    zh: "黑色|黑",
  },
  white: {
    en: "white|whites|whitish",
    ar: "أبيض|بيضاء|بيض",
    de: "*weiß+",
    es: "blanc+",
    fr: "blanc|blanche|blancs|blanches",
    it: "bianc*",
    ja: "白い|白色|ホワイト|真っ白|純白",
    ko: "하얀|흰색|화이트|흰",
    pt: "branc+",
    tw: "白色|純白|雪白",
    vi: "trắng|màu trắng",
    zh: "白色|纯白|雪白",
  },
  grey: {
    en: "grey|gray|greys|grays|greyish|grayish",
    ar: "رمادي*",
    de: "*grau+",
    es: "gris|grises|grisáce*",
    fr: "gris|grise|grises",
    it: "grigi*",
    ja: "灰色|グレー|グレイ|ねずみ色",
    ko: "회색|그레이",
    pt: "cinza*|cinzent*",
    tw: "灰色",
    vi: "xám|màu xám",
    zh: "灰色",
  },
  brown: {
    en: "brown|browns|brownish",
    ar: "بني|بنية",
    de: "*braun+",
    es: "marrón|marrones",
    fr: "marron|marrons|brun+",
    it: "marron+",
    ja: "茶色|ブラウン",
    ko: "갈색|브라운",
    pt: "marrom|marrons",
    tw: "棕色|咖啡色",
    vi: "nâu|màu nâu",
    zh: "棕色|咖啡色",
  },
  // ---- Shades (the Y2K look tells them apart) ----------------------------------------------
  magenta: {
    en: "magenta",
    ar: "ماجنتا|ماجينتا",
    de: "magenta*",
    es: "magenta",
    fr: "magenta",
    it: "magenta",
    ja: "マゼンタ",
    ko: "마젠타",
    pt: "magenta",
    tw: "洋紅|品紅",
    vi: "hồng cánh sen|magenta",
    zh: "洋红|品红",
  },
  fuchsia: {
    en: "fuchsia",
    ar: "فوشيا|فوشي",
    de: "fuchsia*",
    es: "fucsia",
    fr: "fuchsia",
    it: "fucsia",
    ja: "フューシャ|フクシア",
    ko: "푸시아|퓨샤",
    pt: "fúcsia",
    tw: "紫紅",
    vi: "hồng tím|tím hồng",
    zh: "紫红",
  },
  cherry: {
    en: "cherry|cherries",
    ar: "كرزي*|كرز",
    de: "kirsch*",
    es: "cereza*",
    fr: "cerise*",
    it: "ciliegi*",
    ja: "チェリー|さくらんぼ|桜桃",
    ko: "체리",
    pt: "cereja*",
    tw: "櫻桃",
    vi: "anh đào|đỏ anh đào",
    zh: "樱桃",
  },
  coral: {
    en: "coral|corals",
    ar: "مرجاني*|مرجان",
    de: "koralle*",
    es: "coral|corales",
    fr: "corail|coraux",
    it: "corallo",
    ja: "コーラル|珊瑚",
    ko: "코랄|산호",
    pt: "coral|corais",
    tw: "珊瑚",
    vi: "san hô",
    zh: "珊瑚",
  },
  peach: {
    en: "peach|peachy",
    ar: "خوخي*|مشمشي*",
    de: "pfirsich*",
    es: "melocot*|durazno",
    fr: "pêche|pêches",
    it: "pesca|pesche",
    ja: "ピーチ",
    ko: "피치|복숭아",
    pt: "pêssego",
    tw: "蜜桃",
    vi: "màu đào|hồng đào",
    zh: "蜜桃",
  },
  lemon: {
    en: "lemon|lemony",
    ar: "ليموني*",
    de: "zitrone*|zitronengelb*",
    es: "limón",
    fr: "citron|citrons",
    it: "limone",
    ja: "レモン",
    ko: "레몬",
    pt: "limão",
    tw: "檸檬",
    vi: "chanh|vàng chanh",
    zh: "柠檬",
  },
  lime: {
    en: "lime",
    ar: "ليمي|أخضر ليموني",
    de: "limette*|limettengrün*",
    es: "lima|verde lima",
    fr: "citron vert|vert citron|vert lime",
    it: "verde lime",
    ja: "ライム",
    ko: "라임|연두",
    pt: "lima|verde-limão|verde limão",
    tw: "萊姆|青檸",
    vi: "xanh chanh|chanh xanh",
    zh: "青柠|莱姆",
  },
  emerald: {
    en: "emerald",
    ar: "زمردي*|زمرد",
    de: "smaragd*",
    es: "esmeralda*",
    fr: "émeraude*",
    it: "smerald+",
    ja: "エメラルド",
    ko: "에메랄드",
    pt: "esmeralda*",
    tw: "翡翠|祖母綠",
    vi: "ngọc lục bảo",
    zh: "翡翠|祖母绿",
  },
  mint: {
    en: "mint|minty",
    ar: "نعناعي*",
    de: "mint*|minzgrün*",
    es: "menta",
    fr: "menthe",
    it: "menta",
    ja: "ミント",
    ko: "민트",
    pt: "menta",
    tw: "薄荷",
    vi: "bạc hà|xanh bạc hà|xanh mint",
    zh: "薄荷",
  },
  teal: {
    en: "teal",
    ar: "أزرق مخضر|تيل",
    de: "petrol*|blaugrün*",
    es: "verde azulado|azul petróleo",
    fr: "bleu canard|sarcelle",
    it: "ottanio|verde petrolio",
    ja: "ティール|青緑",
    ko: "틸|청록",
    pt: "azul-petróleo|azul petróleo|verde-azulado",
    tw: "藍綠|青綠",
    vi: "xanh mòng két|xanh cổ vịt",
    zh: "蓝绿|青绿",
  },
  turquoise: {
    en: "turquoise",
    ar: "فيروزي*|فيروز",
    de: "türkis*",
    es: "turques*",
    fr: "turquoise+",
    it: "turches*",
    ja: "ターコイズ",
    ko: "터키석|터쿼이즈",
    pt: "turquesa*",
    tw: "綠松石|土耳其藍",
    vi: "xanh ngọc|ngọc lam",
    zh: "绿松石|土耳其蓝",
  },
  aqua: {
    en: "aqua|aquamarine",
    ar: "أكوا|زبرجدي*",
    de: "aqua*",
    es: "aguamarina",
    fr: "aigue-marine",
    it: "acquamarina|verde acqua",
    ja: "アクア",
    ko: "아쿠아",
    pt: "água-marinha",
    tw: "水藍",
    vi: "xanh nước|màu aqua",
    zh: "水蓝",
  },
  cyan: {
    en: "cyan",
    ar: "سيان",
    de: "zyan*",
    es: "cian",
    fr: "cyan",
    it: "ciano",
    ja: "シアン",
    ko: "시안",
    pt: "ciano",
    tw: "湖藍|天青色",
    vi: "xanh lơ|xanh cyan",
    zh: "湖蓝|天青色",
  },
  sky: {
    en: "sky|skies",
    ar: "سماء|سماوي*",
    de: "himmel*",
    es: "cielo|cielos|celeste+",
    fr: "ciel|cieux|bleu ciel|céleste*",
    it: "cielo|cieli|celest+|azzurr+",
    ja: "空色|水色|スカイ|青空",
    ko: "하늘|스카이",
    pt: "céu|céus|celeste+",
    tw: "天空|天藍",
    vi: "bầu trời|da trời|trời xanh",
    zh: "天空|天蓝",
  },
  cobalt: {
    en: "cobalt",
    ar: "كوبالتي*|كوبالت",
    de: "kobalt*",
    es: "cobalto",
    fr: "cobalt",
    it: "cobalto",
    ja: "コバルト",
    ko: "코발트",
    pt: "cobalto",
    tw: "鈷藍",
    vi: "xanh coban|coban",
    zh: "钴蓝",
  },
  navy: {
    en: "navy",
    ar: "كحلي*",
    de: "marineblau*",
    es: "azul marino",
    fr: "bleu marine",
    it: "blu navy|blu marino",
    ja: "ネイビー|紺",
    ko: "네이비|남색",
    pt: "azul-marinho|azul marinho",
    tw: "海軍藍|藏青",
    vi: "xanh navy|xanh đen|xanh than",
    zh: "海军蓝|藏青",
  },
  indigo: {
    en: "indigo",
    ar: "نيلي*",
    de: "indigo*",
    es: "índigo|añil",
    fr: "indigo",
    it: "indaco",
    ja: "インディゴ|藍染",
    ko: "인디고|쪽빛",
    pt: "índigo|anil",
    tw: "靛藍|靛青",
    vi: "chàm|màu chàm",
    zh: "靛蓝|靛青",
  },
  lavender: {
    en: "lavender",
    ar: "خزامى|لافندر",
    de: "lavendel*",
    es: "lavanda",
    fr: "lavande",
    it: "lavanda",
    ja: "ラベンダー",
    ko: "라벤더",
    pt: "lavanda",
    tw: "薰衣草",
    vi: "oải hương|lavender",
    zh: "薰衣草",
  },
  lilac: {
    en: "lilac",
    ar: "ليلكي*|ليلك",
    de: "flieder*",
    es: "lila claro|malva",
    fr: "lilas",
    it: "lilla",
    ja: "ライラック|藤色",
    ko: "라일락",
    pt: "lilás",
    tw: "丁香紫|淡紫",
    vi: "tử đinh hương|tím nhạt",
    zh: "丁香紫|淡紫",
  },
  violet: {
    en: "violet|violets",
    ar: "بنفسج",
    de: "violett+",
    es: "violeta*",
    fr: "violet+|violette+",
    it: "violett+",
    ja: "バイオレット|菫色|すみれ色",
    ko: "바이올렛|제비꽃",
    pt: "violeta*",
    tw: "紫羅蘭",
    vi: "tím violet|màu violet",
    zh: "紫罗兰",
  },
  plum: {
    en: "plum|plums",
    ar: "برقوقي*",
    de: "pflaume*|pflaumenfarb*",
    es: "ciruela",
    fr: "prune",
    it: "prugna",
    ja: "プラム",
    ko: "자두|플럼",
    pt: "ameixa",
    tw: "梅子色|李子色",
    vi: "mận|màu mận",
    zh: "梅子色|李子色",
  },
  // ---- Materials and backgrounds -------------------------------------------------------
  chrome: {
    en: "chrome|chromed|chromy|metallic|metal|metals|mirror|mirrored|liquid",
    ar: "كروم|كرومي*|معدني*|معدن|مرآة|مرايا",
    de: "chrom+|*chrom|verchromt*|metall*|spiegel*",
    es: "crom+|cromad*|metal|metales|metálic*|espej*",
    fr: "chrom+|chromé*|métal|métaux|métallis*|métallique*|miroir*",
    it: "crom+|cromat*|metall*|specchi*",
    ja: "クローム|クロム|メタリック|メタル|金属|鏡面|ミラー",
    ko: "크롬|메탈|금속|미러|거울",
    pt: "crom+|cromad*|metal|metais|metálic*|espelh*",
    tw: "金屬|鉻|鍍鉻|鏡面|電鍍",
    vi: "crôm|chrome|kim loại|ánh kim|gương|tráng gương",
    zh: "金属|铬|镀铬|镜面|电镀",
  },
  gradient: {
    en: "gradient|gradients|ombre|ombré|gradation",
    ar: "تدرج*|متدرج*",
    de: "farbverlauf*|verlauf*|gradient*",
    es: "degradad*|degradé|gradiente*",
    fr: "dégradé*|gradient*",
    it: "sfumat*|gradient*",
    ja: "グラデーション|グラデ",
    ko: "그라데이션|그러데이션|그라디언트",
    pt: "degradê|degradé|gradiente*",
    tw: "漸層|漸變",
    vi: "chuyển sắc|chuyển màu|dải màu",
    zh: "渐变|渐层",
  },
  holographic: {
    en: "holographic|holo|hologram|holograms|iridescent|opal|opalescent|prism|prisms|prismatic|pearl|pearls|pearly|pearlescent",
    ar: "هولوغرافي*|هولوجرافي*|هولوغرام|قزحي*|لؤلؤ*|أوبال",
    de: "holograf*|holograph*|hologramm*|irisierend*|schillernd*|perlmutt*|perle*|opal*|prisma*",
    es: "holográfic*|holograma*|iridiscent*|tornasolad*|perla*|nacarad*|ópalo|prism*",
    fr: "holographi*|hologramme*|irisé*|iridescent*|nacré*|perle*|opale*|prism*",
    it: "olografic*|ologramm*|iridescent*|cangiant*|perla|perle|perlat*|madreperla*|opale*|prism*",
    ja: "ホログラフィック|ホログラム|ホロ|玉虫色|パール|真珠|オパール|プリズム",
    ko: "홀로그래픽|홀로그램|진주|오팔|프리즘",
    pt: "holográfic*|holograma*|iridescent*|furta-cor|perolad*|pérola*|opala*|prism*",
    tw: "全息|鐳射|幻彩|珍珠|蛋白石|稜鏡|偏光",
    vi: "hologram|ảnh ba chiều|óng ánh|ngũ sắc|ngọc trai|xà cừ|lăng kính",
    zh: "全息|镭射|幻彩|珍珠|蛋白石|棱镜|偏光",
  },
  rainbow: {
    en: "rainbow|rainbows",
    ar: "قوس قزح|قوس المطر",
    de: "regenbogen*",
    es: "arcoíris|arco iris",
    fr: "arc-en-ciel|arcs-en-ciel",
    it: "arcobalen*",
    ja: "虹|レインボー",
    ko: "무지개",
    pt: "arco-íris|arco íris",
    tw: "彩虹",
    vi: "cầu vồng",
    zh: "彩虹",
  },
  sparkle: {
    en: "glitter|glitters|glittery|glittering|sparkle|sparkles|sparkly|sparkling|bling|shimmer|shimmery|shimmering",
    ar: "لمعان|لمعات|لمعة|لامع*|بريق|براق*|متلالئ*|تلالؤ|جليتر",
    de: "glitzer*|glitter*|funkel*|glimmer*|pailletten*",
    es: "destello*|brillo|brillos|brillit*|brillantina|purpurina|lentejuela*|centell*",
    fr: "paillette*|scintill*|étincel*",
    it: "brillantin*|lustrin*|luccic*|scintill*|paillettes",
    ja: "きらめき|煌めき|キラキラ|きらきら|キラめき|ラメ|グリッター|スパークル",
    ko: "반짝|글리터|스파클",
    pt: "brilho|brilhos|brilhinho*|purpurina|cintil*|lantejoula*|paetê*",
    tw: "閃光|閃亮|閃閃|閃爍|亮片|亮粉|金蔥|閃耀",
    vi: "lấp lánh|kim tuyến|long lanh|lung linh",
    zh: "闪光|闪亮|闪闪|闪烁|亮片|亮粉|金葱|闪耀",
  },
  glam: {
    en: "glam|glamour|glamor|glamorous|glamourous",
    ar: "جلام|فخامة|فخم*",
    de: "glam*",
    es: "glam*",
    fr: "glam*",
    it: "glam*",
    ja: "グラマラス|ゴージャス",
    ko: "글램|글래머",
    pt: "glam*",
    tw: "華麗|奢華",
    vi: "sang chảnh|lộng lẫy",
    zh: "华丽|奢华",
  },
  diamond: {
    en: "diamond|diamonds|diamante",
    ar: "ماس*|الماس*",
    de: "diamant*",
    es: "diamante*",
    fr: "diamant*",
    it: "diamant*",
    ja: "ダイヤ",
    ko: "다이아",
    pt: "diamante*",
    tw: "鑽石",
    vi: "kim cương",
    zh: "钻石",
  },
  neon: {
    en: "neon|neons",
    ar: "نيون",
    de: "neon*",
    es: "neón",
    fr: "néon*",
    it: "neon",
    ja: "ネオン",
    ko: "네온",
    pt: "neon",
    tw: "霓虹",
    vi: "đèn neon|nê-ông",
    zh: "霓虹",
  },
  // ---- Moods -----------------------------------------------------------------------------
  dreamy: {
    en: "dreamy|dream|dreams|dreamlike|dreamland|ethereal",
    ar: "حالم*|حلم|أحلام|أثيري*",
    de: "verträum*|träum*|traum|traumhaft*|traumartig*|traumwelt*|ätherisch*",
    es: "soñador+|sueño|sueños|oníric*|etére*",
    fr: "rêveu*|rêveur*|rêve|rêves|onirique*|éthéré*",
    it: "sognant*|sogno|sogni|sognator*|oniric*|eteree|etere+",
    ja: "夢|ドリーミー|幻想|ゆめかわ|幽玄",
    ko: "몽환|꿈|드리미|환상적",
    pt: "sonhador*|sonho*|oníric*|etére*",
    tw: "夢幻|夢|朦朧|空靈",
    vi: "mơ màng|mộng mơ|huyền ảo|giấc mơ|mơ mộng|thơ mộng",
    zh: "梦幻|梦|朦胧|空灵",
  },
  soft: {
    en: "soft|softly|softness",
    ar: "ناعم*",
    de: "weich*|sanft*|zart+",
    es: "suave*",
    fr: "doux|douce|douces|douceur",
    it: "tenu+|morbido|morbida|morbidi|morbide|soffic+",
    ja: "やわらか|柔らか|ソフト|優しい|やさしい",
    ko: "부드러|부드럽|소프트|은은",
    pt: "suave*",
    tw: "柔和|柔軟|柔美|輕柔",
    vi: "nhẹ nhàng|mềm mại|dịu nhẹ|dịu",
    zh: "柔和|柔软|柔美|轻柔",
  },
  cloud: {
    en: "cloud|clouds|cloudy",
    ar: "غيم*|سحاب*|سحب|غيوم",
    de: "wolke*|wolkig*",
    es: "nube*",
    fr: "nuage*",
    it: "nuvol*",
    ja: "雲",
    ko: "구름",
    pt: "nuve*",
    tw: "雲",
    vi: "mây|đám mây",
    zh: "云",
  },
  angel: {
    en: "angel|angels|angelic",
    ar: "ملاك*|ملائك*",
    de: "engel*",
    es: "ángel|ángeles|angelical*",
    fr: "ange|anges|angéli*",
    it: "angel*",
    ja: "天使|エンジェル",
    ko: "천사|엔젤",
    pt: "anjo*|angelical*",
    tw: "天使",
    vi: "thiên thần",
    zh: "天使",
  },
  pastel: {
    en: "pastel|pastels",
    ar: "باستيل",
    de: "pastell*",
    es: "pastel",
    fr: "pastel*",
    it: "pastell*",
    ja: "パステル",
    ko: "파스텔",
    pt: "pastel",
    tw: "粉彩|馬卡龍",
    vi: "màu phấn",
    zh: "粉彩|马卡龙",
  },
  cute: {
    en: "cute|kawaii|cutesy",
    ar: "لطيف*|كيوت",
    de: "niedlich*|putzig*|knuffig*",
    es: "adorable|adorables|tiern+",
    fr: "mignon*",
    it: "carin+|tenerissim+",
    ja: "かわいい|可愛い|カワイイ|キュート",
    ko: "귀여운|귀엽|큐트",
    pt: "fofo|fofa|fofos|fofas|fofinh*",
    tw: "可愛|萌",
    vi: "dễ thương|đáng yêu",
    zh: "可爱|萌",
  },
  candy: {
    en: "candy|candies|bubblegum|sweet|sweets",
    ar: "حلوى|حلويات|حلو",
    de: "süß+|bonbon*|zuckerwatte",
    es: "dulce+|caramelo*|golosina*|chicle",
    fr: "bonbon*|sucré*|friandise*",
    it: "dolc+|caramell+",
    ja: "キャンディ|飴|スイート|甘い|バブルガム",
    ko: "캔디|사탕|달콤|버블껌|스위트",
    pt: "doce|doces|chiclete|guloseima*|algodão doce",
    tw: "糖果|甜|泡泡糖|棉花糖",
    vi: "kẹo|ngọt ngào|ngọt",
    zh: "糖果|甜|泡泡糖|棉花糖",
  },
  cyber: {
    en: "cyber|cyberpunk|matrix|tech|digital|virtual|tron",
    ar: "سايبر|سايبربانك|رقمي*|تقني*|افتراضي*|ديجيتال",
    de: "cyber*|digital+|virtuell+|hightech",
    es: "ciber*|cyber*|digital+|virtual+|tecnológic*",
    fr: "cyber*|numérique*|virtuel*|digital+|technologique*",
    it: "cyber*|digital+|virtual+|tecnologic*",
    ja: "サイバー|デジタル|バーチャル|テック|マトリックス",
    ko: "사이버|디지털|버추얼|가상|테크",
    pt: "ciber*|cyber*|digital|digitais|virtual|virtuais|tecnológic*",
    tw: "賽博|數位|數碼|虛擬|科技|電子",
    vi: "kỹ thuật số|công nghệ|điện tử|thực tế ảo",
    zh: "赛博|数码|数字|虚拟|科技|电子",
  },
  futuristic: {
    en: "futuristic|future",
    ar: "مستقبل*",
    de: "futurist*|zukunft*|zukünftig*",
    es: "futurist*|futur+",
    fr: "futur+|futurist*",
    it: "futurist*|futur+",
    ja: "未来|フューチャー",
    ko: "미래",
    pt: "futurist*|futur+",
    tw: "未來",
    vi: "tương lai|viễn tưởng",
    zh: "未来",
  },
  // ---- Times and settings --------------------------------------------------------------
  sunset: {
    en: "sunset|sunsets|sundown|dusk|sunrise|sunrises|evening|evenings|twilight",
    ar: "غروب|شروق|شفق|غسق|مساء*|مسائي*",
    de: "sonnenuntergang*|sonnenaufgang*|abend*|dämmerung*|abenddämmerung*|morgenrot",
    es: "atardecer*|puesta de sol|puesta del sol|amanecer*|anochecer|crepúscul*|ocaso",
    fr: "coucher de soleil|couchers de soleil|coucher du soleil|lever de soleil|lever du soleil|crépuscul*|fin de journée|aube",
    it: "tramont*|alba|crepuscol*",
    ja: "夕焼け|夕暮れ|夕日|夕陽|日没|サンセット|黄昏|たそがれ|朝焼け|日の出|夕方|マジックアワー",
    ko: "노을|석양|일몰|해질녘|해 질 녘|황혼|일출|해돋이|저녁|선셋",
    pt: "pôr do sol|pôr-do-sol|entardecer|anoitecer|amanhecer|crepúscul*|fim de tarde|nascer do sol|ocaso",
    tw: "夕陽|日落|黃昏|晚霞|落日|日出|朝霞|傍晚|夕照",
    vi: "hoàng hôn|chiều tà|bình minh|mặt trời lặn|mặt trời mọc|chạng vạng|ráng chiều|buổi tối",
    zh: "夕阳|日落|黄昏|晚霞|落日|日出|朝霞|傍晚|夕照",
  },
  night: {
    en: "night|nights|nighttime|midnight|tonight|nightfall|dark|darker|darkness|nocturnal",
    ar: "ليل|ليلة|ليالي|ليلي|ليلية|منتصف الليل|ظلام|مظلم*|داكن*|عتمة",
    de: "nacht*|nächtlich*|mitternacht*|dunkel|dunkl+|finster*",
    es: "noche*|nocturn*|medianoche|oscur+",
    fr: "nuit*|nocturne*|minuit|sombre*|obscur*",
    it: "notte|notti|nottur*|mezzanotte|scur+|oscur+|buio",
    ja: "夜|ナイト|深夜|真夜中|暗い|闇|ダーク",
    ko: "밤|나이트|한밤|자정|어두운|어둠|다크",
    pt: "noite*|noturn*|meia-noite|escur+",
    tw: "夜|深夜|午夜|黑夜|黑暗|暗黑|暗色",
    vi: "đêm|ban đêm|nửa đêm|tối|bóng tối|u tối",
    zh: "夜|深夜|午夜|黑夜|黑暗|暗黑|暗色",
  },
  party: {
    en: "party|parties|club|clubs|clubbing|nightclub|rave|raves|disco|discos",
    ar: "حفلة|حفلات|حفل|ديسكو|ملهى|نادي ليلي",
    de: "party*|partys|club*|disco*|disko*|rave*",
    es: "fiesta*|discoteca*|club|clubs|disco|rave",
    fr: "fête*|soirée*|boîte de nuit|club*|disco*|rave",
    it: "festa|feste|discotec*|club|rave|disco",
    ja: "パーティー|パーティ|クラブ|ディスコ|レイブ",
    ko: "파티|클럽|디스코|레이브",
    pt: "festa*|balada*|boate*|discoteca*|club|rave",
    tw: "派對|夜店|迪斯可|狂歡|俱樂部",
    vi: "bữa tiệc|tiệc|hộp đêm|vũ trường|disco",
    zh: "派对|夜店|迪斯科|蹦迪|狂欢|俱乐部",
  },
  space: {
    en: "space|galaxy|galaxies|cosmic|cosmos|universe",
    ar: "فضاء|فضائي*|مجرة|مجرات|الكون",
    de: "weltall|weltraum*|galaxie*|kosmisch*|kosmos|universum",
    es: "espacio|galaxia*|cósmic*|cosmos|universo",
    fr: "espace|galaxie*|cosmique*|cosmos|univers",
    it: "spazio|galassi*|cosmic*|cosmo|universo",
    ja: "宇宙|銀河|ギャラクシー|コズミック|スペース",
    ko: "우주|은하|갤럭시|코스믹",
    pt: "espaço|galáxia*|cósmic*|cosmos|universo",
    tw: "宇宙|銀河|星系|太空",
    vi: "vũ trụ|thiên hà|không gian",
    zh: "宇宙|银河|星系|太空",
  },
  star: {
    en: "star|stars|starry|starlight|starlit",
    ar: "نجم|نجوم|نجمة|نجمات",
    de: "stern|sterne|sternen*|sternchen",
    es: "estrella*|estrellad*",
    fr: "étoile*",
    it: "stella|stelle|stellat*|stellare",
    ja: "星|スター",
    ko: "별빛|별들|별자리|별이 빛나는|별무리|별똥별|스타",
    pt: "estrela*|estrelad*",
    tw: "星",
    vi: "ngôi sao|vì sao|đầy sao|trời sao|ánh sao|sao băng",
    zh: "星",
  },
  moon: {
    en: "moon|moons|moonlight|moonlit",
    ar: "قمر|أقمار|قمري*|هلال",
    de: "mond|monde|mondlicht|mondschein|mondnacht|vollmond|halbmond",
    es: "luna|lunas|lunar",
    fr: "lune|lunes|lunaire",
    it: "luna|lune|lunare",
    ja: "月光|月夜|満月|月明かり|三日月|ムーン",
    ko: "달빛|보름달|초승달|달밤|문라이트",
    pt: "lua|luas|luar|lunar",
    tw: "月亮|月光|明月|滿月|月夜",
    vi: "mặt trăng|ánh trăng|trăng|vầng trăng",
    zh: "月亮|月光|明月|满月|月夜",
  },
  beach: {
    en: "beach|beaches|beachy|seaside|seashore",
    ar: "شاطئ|شواطئ|شط",
    de: "strand*",
    es: "playa*",
    fr: "plage*",
    it: "spiaggi*",
    ja: "ビーチ|海辺|砂浜|浜辺",
    ko: "해변|바닷가|해수욕장",
    pt: "praia*",
    tw: "海灘|沙灘|海邊",
    vi: "bãi biển|bờ biển",
    zh: "海滩|沙滩|海边",
  },
  sea: {
    en: "sea|seas|ocean|oceans|oceanic|seascape|underwater",
    ar: "بحر|بحار|محيط|محيطات|بحري*",
    de: "meer*|ozean*",
    es: "mar|mares|océano*",
    fr: "mer|mers|océan*",
    it: "mare|mari|ocean*",
    ja: "海|オーシャン|大海|海洋",
    ko: "바다|오션|대양",
    pt: "mar|mares|oceano*",
    tw: "海|海洋|大海",
    vi: "biển|đại dương",
    zh: "海|海洋|大海",
  },
  summer: {
    en: "summer|summers|summery|summertime",
    ar: "صيف*",
    de: "sommer*",
    es: "verano*|veranieg*",
    fr: "l'été|d'été|en été|cet été|estival*",
    it: "estate|estiv+",
    ja: "夏|サマー",
    ko: "여름|썸머|서머",
    pt: "verão|veraneio",
    tw: "夏天|夏日|夏季|盛夏",
    vi: "mùa hè|mùa hạ|ngày hè",
    zh: "夏天|夏日|夏季|盛夏",
  },
  tropical: {
    en: "tropical|tropics|tropic",
    ar: "استوائي*",
    de: "tropisch*|tropen*",
    es: "tropical*",
    fr: "tropical*|tropicaux|tropique*",
    it: "tropical*|tropic*",
    ja: "トロピカル|熱帯|南国",
    ko: "트로피컬|열대",
    pt: "tropical|tropicais",
    tw: "熱帶",
    vi: "nhiệt đới",
    zh: "热带",
  },
  winter: {
    en: "winter|winters|wintry|wintery|wintertime",
    ar: "شتاء|شتوي*",
    de: "winter*",
    es: "invierno*|invernal*",
    fr: "hiver*|hivernal*",
    it: "invern*",
    ja: "冬|ウィンター",
    ko: "겨울|윈터",
    pt: "inverno*|invernal",
    tw: "冬天|冬季|冬日|寒冬",
    vi: "mùa đông",
    zh: "冬天|冬季|冬日|寒冬",
  },
  snow: {
    en: "snow|snowy|snowing|snowfall|snowflake|snowflakes|snowman|snowmen",
    ar: "ثلج|ثلوج|ثلجي*",
    de: "schnee*|verschneit*",
    es: "nieve*|nevad*",
    fr: "neige*|neigeu*|enneigé*",
    it: "neve|nevi|nevos*|innevat*",
    ja: "雪|スノー",
    ko: "눈송이|눈꽃|눈 내리는|설경|눈밭|하얀 눈|폭설|함박눈|눈사람|스노우",
    pt: "neve*|nevad*",
    tw: "雪",
    vi: "tuyết",
    zh: "雪",
  },
  ice: {
    en: "ice|icy|iced|icicle|icicles",
    ar: "جليد*",
    de: "eis|eisig+|eiskalt*|eiszapf*",
    es: "hielo*|helad+",
    fr: "glace|glaces|glacé*|glacial*",
    it: "ghiacci*",
    ja: "氷|アイス",
    ko: "얼음|아이스|빙하",
    pt: "gelo|gelad+",
    tw: "冰",
    vi: "băng giá|băng tuyết|đóng băng|tảng băng",
    zh: "冰",
  },
  christmas: {
    en: "christmas|xmas|christmassy",
    ar: "كريسماس|عيد الميلاد المجيد",
    de: "weihnacht*",
    es: "navidad*|navideñ*",
    fr: "noël",
    it: "natale|natalizi+",
    ja: "クリスマス|聖夜",
    ko: "크리스마스|성탄",
    pt: "natal|natalin*",
    tw: "聖誕|耶誕",
    vi: "giáng sinh|noel",
    zh: "圣诞",
  },
  spring: {
    en: "spring|springtime",
    ar: "ربيع*",
    de: "frühling*|frühjahr*",
    es: "primaver*",
    fr: "printemps|printani*",
    it: "primaver*",
    ja: "春|スプリング",
    ko: "봄|스프링",
    pt: "primaver*",
    tw: "春天|春日|春季|春",
    vi: "mùa xuân|xuân",
    zh: "春天|春日|春季|春",
  },
  flower: {
    en: "flower|flowers|flowery|flowering|floral|blossom|blossoms|bloom|blooms|blooming|roses|wildflowers|sunflowers",
    ar: "زهرة|زهور|أزهار|ورود|ورد|مزهر*",
    de: "blume*|*blumen|blüte*|blumig*|blüh*",
    es: "flor|flores|floral*|florid*|florecid*",
    fr: "fleur*|floral*|fleuri*",
    it: "fior+|floreal*|fiorit*",
    ja: "花|フラワー|桜|満開",
    ko: "꽃|플라워",
    pt: "flor|flores|floral|florais|florid*|florescid*",
    tw: "花|花朵|花卉|櫻花|鮮花",
    vi: "hoa|bông hoa|hoa lá|hoa anh đào",
    zh: "花|花朵|花卉|樱花|鲜花",
  },
  garden: {
    en: "garden|gardens|park|parks",
    ar: "حديقة|حدائق|بستان|منتزه|متنزه",
    de: "*garten|*gärten|park|parks|*park",
    es: "jardín|jardines|parque|parques",
    fr: "jardin|jardins|parc|parcs",
    it: "giardin+|parco|parchi",
    ja: "庭園|お庭|ガーデン|公園|パーク|花園",
    ko: "정원|공원|가든|파크",
    pt: "jardim|jardins|parque|parques",
    tw: "花園|公園|庭園",
    vi: "vườn|khu vườn|vườn hoa|công viên",
    zh: "花园|公园|庭园|园林",
  },
} as const satisfies Record<string, Words>;

/**
 * Words that look like a concept's word but mean something else; they are matched (so they
 * hide the shorter word inside them) and then dropped.
 */
const NOT_CONCEPTS =
  // Vietnamese: faded, money; maximum, optimal, minimalist, minimum; pattern, earrings, USA.
  "bạc màu|tiền bạc|tối đa|tối ưu|tối giản|tối thiểu|hoa văn|hoa tai|hoa kỳ|người hoa|" +
  // Chinese/Japanese: influencer, fireworks, bride, to spend, youth.
  "网红|網紅|烟花|煙花|花火|花嫁|花费|花費|花钱|花錢|青春";

export type Concept = keyof typeof VOCABULARY;
export const CONCEPTS = Object.keys(VOCABULARY) as Concept[];

/** The words of one concept in one language, as written above (for tests and docs). */
export function wordsOf(concept: Concept, language: PromptLanguage): string[] {
  return (VOCABULARY[concept] as Words)[language].split("|");
}

export interface ConceptMatch {
  concept: Concept;
  /** Span in the normalised prompt (see normalisePrompt). */
  start: number;
  end: number;
}

/** NFKC, lower case, Arabic diacritics/tatweel removed and letter variants unified. */
export function normalisePrompt(prompt: string): string {
  return normaliseText(prompt.slice(0, MAX_PROMPT_CHARS));
}

function normaliseText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u064B-\u065F\u0670\u0640]/g, "")
    .replace(/[أإآٱ]/g, "ا")
    .replace(/ى/g, "ي")
    .replace(/[’‘ʼ]/g, "'");
}

/** Letters of a word in languages written with spaces (CJK letters and digits end a word). */
const LETTER = /[\p{L}\p{M}]/u;
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;
const ARABIC = /\p{sc=Arabic}/u;
const isWordChar = (c: string | undefined) => c !== undefined && LETTER.test(c) && !CJK.test(c);

/** Short endings a "stem+" word may take (German, Romance adjectives and plurals). */
const ENDINGS = new Set(["", "s", "e", "n", "a", "o", "i", "es", "er", "en", "em", "as", "os"]);
/** Arabic proclitics before a word: and, so, with/in, like, for, the, and their combinations. */
const PROCLITICS = new Set([
  "و",
  "ف",
  "ب",
  "ك",
  "ل",
  "ال",
  "وال",
  "فال",
  "بال",
  "كال",
  "لل",
  "وب",
  "فب",
  "ول",
  "فل",
  "وك",
  "فك",
  "وبال",
  "ولل",
  "فلل",
]);
const ACCENTED_LANGUAGES: ReadonlySet<PromptLanguage> = new Set(["de", "es", "fr", "it", "pt"]);

interface Pattern {
  core: string;
  concept: Concept | null;
  /** Found anywhere (Chinese, Japanese, Korean). */
  anywhere: boolean;
  arabic: boolean;
  /** May end a compound ("*garten"). */
  compound: boolean;
  /** Any continuation ("*") or a short ending ("+"). */
  tail: "" | "*" | "+";
}

function parse(raw: string, concept: Concept | null): Pattern {
  const compound = raw.startsWith("*");
  const tail = raw.endsWith("*") && raw.length > 1 ? "*" : raw.endsWith("+") ? "+" : "";
  const core = normaliseText(raw.slice(compound ? 1 : 0, tail ? -1 : undefined));
  return { core, concept, anywhere: CJK.test(core), arabic: ARABIC.test(core), compound, tail };
}

/** The spellings a word is also typed in: without accents; German umlauts as ae/oe/ue, ß as ss. */
function variants(word: string, language: PromptLanguage): string[] {
  if (!ACCENTED_LANGUAGES.has(language)) return [word];
  const plain = word.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC").replace(/ß/g, "ss");
  const out = new Set([word, plain]);
  if (language === "de")
    out.add(word.replace(/ä/g, "ae").replace(/ö/g, "oe").replace(/ü/g, "ue").replace(/ß/g, "ss"));
  return [...out];
}

function buildPatterns(): Pattern[] {
  const patterns: Pattern[] = [];
  const owner = new Map<string, Concept>();
  for (const concept of CONCEPTS)
    for (const language of PROMPT_LANGUAGES)
      for (const word of wordsOf(concept, language)) owner.set(normaliseText(word), concept);
  const seen = new Set<string>();
  for (const concept of CONCEPTS) {
    for (const language of PROMPT_LANGUAGES) {
      for (const word of wordsOf(concept, language)) {
        for (const spelling of variants(word, language)) {
          const key = normaliseText(spelling);
          // An unaccented spelling that is another concept's word stays that concept's.
          if (spelling !== word && (owner.get(key) ?? concept) !== concept) continue;
          if (seen.has(key)) continue;
          seen.add(key);
          patterns.push(parse(spelling, concept));
        }
      }
    }
  }
  for (const word of NOT_CONCEPTS.split("|")) patterns.push(parse(word, null));
  return patterns;
}

let PATTERNS: Pattern[] | undefined;

function tokenEnd(text: string, i: number): number {
  while (isWordChar(text[i])) i++;
  return i;
}

function tokenStart(text: string, i: number): number {
  while (i > 0 && isWordChar(text[i - 1])) i--;
  return i;
}

/** Where a pattern found at `at` ends, or -1 when the text there is not that word. */
function matchEnd(text: string, p: Pattern, at: number): number {
  const after = at + p.core.length;
  if (p.anywhere) return after;
  if (!p.compound && isWordChar(text[at - 1])) {
    if (!p.arabic || !PROCLITICS.has(text.slice(tokenStart(text, at), at))) return -1;
  }
  if (p.tail === "*") return tokenEnd(text, after);
  if (p.tail === "+") {
    const end = tokenEnd(text, after);
    return ENDINGS.has(text.slice(after, end)) ? end : -1;
  }
  return isWordChar(text[after]) ? -1 : after;
}

/**
 * The concepts a prompt mentions, in the order they appear (a concept may appear more than
 * once). Overlapping words: the earliest wins, then the longest.
 */
export function findConcepts(prompt: string): ConceptMatch[] {
  const text = normalisePrompt(prompt);
  if (!text.trim()) return [];
  PATTERNS ??= buildPatterns();
  const found: { start: number; end: number; concept: Concept | null; order: number }[] = [];
  PATTERNS.forEach((p, order) => {
    if (!p.core) return;
    for (let at = text.indexOf(p.core); at >= 0; at = text.indexOf(p.core, at + 1)) {
      const end = matchEnd(text, p, at);
      if (end > at) found.push({ start: at, end, concept: p.concept, order });
    }
  });
  found.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
  const out: ConceptMatch[] = [];
  let taken = 0;
  for (const m of found) {
    if (m.start < taken) continue;
    taken = m.end;
    if (m.concept) out.push({ concept: m.concept, start: m.start, end: m.end });
  }
  return out;
}

/** The distinct concepts of a prompt, in order of first appearance. */
export function conceptsIn(prompt: string): Concept[] {
  return [...new Set(findConcepts(prompt).map((m) => m.concept))];
}
