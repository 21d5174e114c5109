// The deck's UI strings, one table per language (by `lang:` of lesson.yml, `de-CH` → `de`):
// adding a language is one more table here. A language without a table, or a string its table
// lacks, is English. deck.js, handout.js, provenance.js, present.js (reveal's speaker view's
// own labels), the widgets and the live preview ask `deckStrings(part)` for theirs. (A note's minutes are read in any language: deck.js.)
(function () {
  "use strict";
  function plural(one, many) {
    return function (n) { return n + (n === 1 ? one : many); };
  }
  var TABLES = {
    en: {
      deck: { right: "✓ Correct", wrong: "✗ Try again", answer: "✓ Answer",
        reveal: "Show answer (A)", hide: "Hide answer (A)", noQuiz: "No quiz on this slide",
        revealKey: "Show the quiz answer", menu: "Slide menu (M)", votes: plural(" vote", " votes"),
        total: function (n) { return plural(" vote", " votes")(n) + " so far"; },
        poll: "Votes", resume: "Resume presentation", reset: "Reset votes (R)",
        resetKey: "Reset the quiz's votes",
        plan: function (m, o) {
          return "Planned " + m + " min" + (o ? " (optional slides add " + o + " min)" : "");
        },
        unplanned: function (slides) {
          return "no minutes in the notes of slide" + (slides.length > 1 ? "s " : " ") +
            slides.join(", ");
        } },
      search: { notesOnly: "Found only in the speaker notes",
        hiddenOnly: "Found only in hidden text" },
      handout: { slide: "Slide", min: "min", sofar: "so far", answer: "Answer: ",
        key: "Answer key", quiz: "Quiz", source: "Computed at", explain: "Why: ",
        inClass: "(Answer given in class.)", shown: "Answer shown in class: ",
        optional: "optional, not in the plan", plan: "Planned: ",
        optionalAdd: "optional slides add " },
      popover: { popover: "Where this value comes from", expr: "Expression", at: "Written at",
        cellAt: "Computed in the cell at",
        lines: function (a, b) { return "(lines " + a + "–" + b + ")"; }, close: "Close",
        larger: "Larger", speaker: "Values on this slide", from: "from",
        noCell: "No cell binds a name this expression uses: it is computed from the " +
          "expression alone." },
      live: { close: "Close" },
      speaker: { upcoming: "Upcoming", time: "Time", reset: "Click to Reset",
        pacing: "Pacing – Time to finish current slide", notes: "Notes",
        layout: function (name) { return "Layout: " + name; },
        layouts: { "default": "Default", wide: "Wide", tall: "Tall", "notes-only": "Notes only" } },
    },
    zh: {
      deck: { right: "✓ 回答正确", wrong: "✗ 再想想", answer: "✓ 正确答案", reveal: "显示答案（A）",
        hide: "隐藏答案（A）", noQuiz: "本页没有测验", revealKey: "显示/隐藏本页测验的答案",
        menu: "幻灯片目录（M）", votes: function (n) { return n + " 票"; },
        total: function (n) { return "已投 " + n + " 票"; },
        poll: "投票", resume: "继续演示", reset: "清零投票（R）", resetKey: "清零本页测验的投票",
        plan: function (m, o) {
          return "计划 " + m + " 分钟" + (o ? "（可跳过的页另加 " + o + " 分钟）" : "");
        },
        unplanned: function (slides) { return "第 " + slides.join("、") + " 页的备注没写分钟"; } },
      search: { notesOnly: "仅在讲者备注中找到", hiddenOnly: "仅在本页未显示的文字中找到" },
      handout: { slide: "幻灯片", min: "分钟", sofar: "累计", answer: "答案：", key: "测验答案",
        quiz: "测验", source: "计算出处", explain: "解析：", inClass: "（答案课上给出。）",
        shown: "课上揭示的答案：", optional: "可跳过，不计入计划", plan: "计划：",
        optionalAdd: "可跳过的页另加 " },
      popover: { popover: "这个数从哪里来", expr: "表达式", at: "写在", cellAt: "计算它的单元格",
        lines: function (a, b) { return "（第 " + a + "–" + b + " 行）"; }, close: "关闭",
        larger: "放大", speaker: "本页的数值", from: "来自",
        noCell: "没有单元格绑定这个表达式用到的名字：它只由表达式本身算出。" },
      live: { close: "关闭" },
      speaker: { upcoming: "下一张", time: "时间", reset: "点击重置",
        pacing: "节奏：本页还剩的时间", notes: "讲稿",
        layout: function (name) { return "布局：" + name; },
        layouts: { "default": "默认", wide: "宽屏", tall: "竖排", "notes-only": "只看讲稿" } },
    },
    fr: {
      deck: { right: "✓ Correct", wrong: "✗ Réessayez", answer: "✓ Réponse",
        reveal: "Afficher la réponse (A)", hide: "Masquer la réponse (A)",
        noQuiz: "Pas de quiz sur cette diapositive", revealKey: "Afficher la réponse du quiz",
        menu: "Menu des diapositives (M)",
        votes: function (n) { return n + (n > 1 ? " votes" : " vote"); },
        total: function (n) { return n + (n > 1 ? " votes" : " vote") + " pour l'instant"; },
        poll: "Votes", resume: "Reprendre la présentation", reset: "Remettre les votes à zéro (R)",
        resetKey: "Remettre à zéro les votes du quiz",
        plan: function (m, o) {
          return "Prévu : " + m + " min" + (o ? " (diapositives facultatives : + " + o + " min)"
            : "");
        },
        unplanned: function (slides) {
          return "pas de minutes dans les notes de la diapositive" +
            (slides.length > 1 ? "s " : " ") + slides.join(", ");
        } },
      search: { notesOnly: "Trouvé seulement dans les notes de l'orateur",
        hiddenOnly: "Trouvé seulement dans un texte masqué" },
      handout: { slide: "Diapositive", min: "min", sofar: "cumul", answer: "Réponse : ",
        key: "Corrigé", quiz: "Quiz", source: "Calculé à", explain: "Pourquoi : ",
        inClass: "(Réponse donnée en cours.)", shown: "Réponse montrée en cours : ",
        optional: "facultative, hors du plan", plan: "Prévu : ",
        optionalAdd: "diapositives facultatives : + " },
      popover: { popover: "D'où vient cette valeur", expr: "Expression", at: "Écrite à",
        cellAt: "Calculée dans la cellule à",
        lines: function (a, b) { return "(lignes " + a + "–" + b + ")"; }, close: "Fermer",
        larger: "Agrandir", speaker: "Valeurs de cette diapositive", from: "de",
        noCell: "Aucune cellule ne définit un nom de cette expression : elle est calculée à " +
          "partir de l'expression seule." },
      live: { close: "Fermer" },
      speaker: { upcoming: "Suivante", time: "Heure", reset: "Cliquer pour remettre à zéro",
        pacing: "Rythme : temps restant pour cette diapositive", notes: "Notes",
        layout: function (name) { return "Disposition : " + name; },
        layouts: { "default": "Par défaut", wide: "Large", tall: "Haute", "notes-only": "Notes seules" } },
    },
    de: {
      deck: { right: "✓ Richtig", wrong: "✗ Noch einmal", answer: "✓ Antwort",
        reveal: "Antwort zeigen (A)", hide: "Antwort verbergen (A)",
        noQuiz: "Kein Quiz auf dieser Folie", revealKey: "Die Antwort des Quiz zeigen",
        menu: "Folienmenü (M)", votes: plural(" Stimme", " Stimmen"),
        total: function (n) { return plural(" Stimme", " Stimmen")(n) + " bisher"; },
        poll: "Stimmen", resume: "Präsentation fortsetzen", reset: "Stimmen zurücksetzen (R)",
        resetKey: "Die Stimmen des Quiz zurücksetzen",
        plan: function (m, o) {
          return "Geplant: " + m + " min" + (o ? " (optionale Folien: + " + o + " min)" : "");
        },
        unplanned: function (slides) {
          return "keine Minuten in den Notizen von Folie " + slides.join(", ");
        } },
      search: { notesOnly: "Nur in den Sprechernotizen gefunden",
        hiddenOnly: "Nur in verborgenem Text gefunden" },
      handout: { slide: "Folie", min: "min", sofar: "bisher", answer: "Antwort: ",
        key: "Lösungen", quiz: "Quiz", source: "Berechnet in", explain: "Warum: ",
        inClass: "(Antwort im Unterricht.)", shown: "Im Unterricht gezeigte Antwort: ",
        optional: "optional, nicht im Plan", plan: "Geplant: ",
        optionalAdd: "optionale Folien: + " },
      popover: { popover: "Woher dieser Wert kommt", expr: "Ausdruck", at: "Geschrieben in",
        cellAt: "Berechnet in der Zelle bei",
        lines: function (a, b) { return "(Zeilen " + a + "–" + b + ")"; }, close: "Schließen",
        larger: "Größer", speaker: "Werte auf dieser Folie", from: "aus",
        noCell: "Keine Zelle bindet einen Namen dieses Ausdrucks: Er wird allein aus dem " +
          "Ausdruck berechnet." },
      live: { close: "Schließen" },
      speaker: { upcoming: "Nächste", time: "Zeit", reset: "Klicken zum Zurücksetzen",
        pacing: "Tempo: Zeit bis zum Ende dieser Folie", notes: "Notizen",
        layout: function (name) { return "Layout: " + name; },
        layouts: { "default": "Standard", wide: "Breit", tall: "Hoch", "notes-only": "Nur Notizen" } },
    },
  };
  var asked = String(document.documentElement.lang || "en").split("-")[0].toLowerCase();
  var lang = TABLES.hasOwnProperty(asked) ? asked : "en";

  // `part`'s strings in the deck's language, each one it lacks in English.
  function deckStrings(part) {
    var english = TABLES.en[part] || {};
    var own = TABLES[lang][part] || {};
    var out = {};
    Object.keys(english).forEach(function (key) {
      out[key] = own.hasOwnProperty(key) ? own[key] : english[key];
    });
    return out;
  }
  deckStrings.lang = lang; // the table in use ("en" for a language without one)
  deckStrings.tables = TABLES;
  window.deckStrings = deckStrings;
})();
