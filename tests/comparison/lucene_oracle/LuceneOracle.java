// Lucene analysis oracle for Sounding's `english-lucene` analyzer and the Mr. TyDi analyzers.
//
// Runs Lucene's own code from the Anserini fatjar that Pyserini bundles (or, for Nori, Lucene 8
// jars); nothing here is built or committed as a binary. Run it as a single-file source program
// (Java >= 21):
//
//   java -cp anserini-X-fatjar.jar LuceneOracle.java MODE [LANG] < input > output
//
// MODE is one of
//   analyze   each input line is one text; prints the terms of Anserini's
//             DefaultEnglishAnalyzer.newDefaultInstance() (the analyzer IndexCollection and
//             LuceneSearcher use for BEIR), tab-separated, one output line per input line.
//   tokenize  the same, but only Lucene's StandardTokenizer (case kept, nothing dropped).
//   porter    each input line is one word; prints Lucene's PorterStemFilter output for it.
//   tables    no input; prints the StandardTokenizerImpl DFA (JFlex scanner tables) as text:
//             `cmap START END CLASS` ranges over all code points, then `action`, `attribute`,
//             `rowmap` and `trans` arrays, then `buffer 255`.
//   lang L    each input line is one text; prints the terms of the analyzer Anserini indexes and
//             searches Mr. TyDi language L with: AnalyzerMap.getLanguageSpecificAnalyzer(L) for the
//             languages it maps, DefaultEnglishAnalyzer for `en`, WhitespaceAnalyzer for `sw`
//             (IndexCollection's fall-through), and Lucene's KoreanAnalyzer (Nori) for `ko-nori`
//             (run that one with Lucene's core, analyzers-common and nori jars on the class path).
//   version   prints Lucene's version.
//
// Analyzers are created by reflection so that the file also compiles without Anserini's classes.
//
// Text lines are escaped so that any Java string survives a line-based UTF-8 protocol: `\\`, `\n`,
// `\r`, `\t` and backslash-u plus 4 hex digits (for lone surrogates). Output terms use the same escapes.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Arrays;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.standard.StandardTokenizerImpl;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

public class LuceneOracle {

  static String unescape(String s) {
    if (s.indexOf('\\') < 0) return s;
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\' || i + 1 >= s.length()) { b.append(c); continue; }
      char n = s.charAt(++i);
      switch (n) {
        case 'n': b.append('\n'); break;
        case 'r': b.append('\r'); break;
        case 't': b.append('\t'); break;
        case 'u': b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; break;
        default: b.append(n);
      }
    }
    return b.toString();
  }

  static void escape(CharSequence s, StringBuilder b) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') b.append("\\\\");
      else if (c == '\n') b.append("\\n");
      else if (c == '\r') b.append("\\r");
      else if (c == '\t') b.append("\\t");
      else if (Character.isSurrogate(c)
          && !(Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
          && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)))) {
        b.append(String.format("\\u%04x", (int) c));
      } else b.append(c);
    }
  }

  static Analyzer tokenizerOnly() {
    return new Analyzer() {
      @Override
      protected TokenStreamComponents createComponents(String fieldName) {
        Tokenizer source = new StandardTokenizer();
        return new TokenStreamComponents(source, source);
      }
    };
  }

  static Analyzer newInstance(String className) throws Exception {
    return (Analyzer) Class.forName(className).getDeclaredConstructor().newInstance();
  }

  static Analyzer anserini(String method, String arg) throws Exception {
    Class<?> c = Class.forName(method.substring(0, method.lastIndexOf('.')));
    String name = method.substring(method.lastIndexOf('.') + 1);
    if (arg == null) return (Analyzer) c.getMethod(name).invoke(null);
    return (Analyzer) c.getMethod(name, String.class).invoke(null, arg);
  }

  static Analyzer language(String lang) throws Exception {
    switch (lang) {
      case "en": return anserini("io.anserini.analysis.DefaultEnglishAnalyzer.newDefaultInstance", null);
      case "sw": return newInstance("org.apache.lucene.analysis.core.WhitespaceAnalyzer");
      case "ko-nori": return newInstance("org.apache.lucene.analysis.ko.KoreanAnalyzer");
      default:
        @SuppressWarnings("unchecked")
        Map<String, String> map = (Map<String, String>) Class.forName("io.anserini.analysis.AnalyzerMap").getField("analyzerMap").get(null);
        if (!map.containsKey(lang)) throw new IllegalArgumentException("AnalyzerMap has no " + lang);
        return anserini("io.anserini.analysis.AnalyzerMap.getLanguageSpecificAnalyzer", lang);
    }
  }

  static Analyzer porterOnly() {
    return new Analyzer() {
      @Override
      protected TokenStreamComponents createComponents(String fieldName) {
        Tokenizer source = new KeywordTokenizer();
        return new TokenStreamComponents(source, new PorterStemFilter(source));
      }
    };
  }

  static void run(Analyzer analyzer) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
    StringBuilder b = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      b.setLength(0);
      try (TokenStream ts = analyzer.tokenStream("contents", new StringReader(unescape(line)))) {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        ts.reset();
        boolean first = true;
        while (ts.incrementToken()) {
          if (!first) b.append('\t');
          first = false;
          escape(term, b);
        }
        ts.end();
      }
      b.append('\n');
      out.write(b.toString());
    }
    out.flush();
  }

  static int[] intArray(String name) throws Exception {
    Field f = StandardTokenizerImpl.class.getDeclaredField(name);
    f.setAccessible(true);
    return (int[]) f.get(null);
  }

  static void tables() throws Exception {
    Method cmap = StandardTokenizerImpl.class.getDeclaredMethod("zzCMap", int.class);
    cmap.setAccessible(true);
    StringBuilder b = new StringBuilder();
    int start = 0;
    int cls = (Integer) cmap.invoke(null, 0);
    for (int cp = 1; cp <= 0x110000; cp++) {
      int c = cp <= 0x10FFFF ? (Integer) cmap.invoke(null, cp) : -1;
      if (c != cls) {
        b.append("cmap ").append(start).append(' ').append(cp - 1).append(' ').append(cls).append('\n');
        start = cp;
        cls = c;
      }
    }
    for (String name : new String[] {"ZZ_ACTION", "ZZ_ATTRIBUTE", "ZZ_ROWMAP", "ZZ_TRANS", "ZZ_LEXSTATE"}) {
      int[] a = intArray(name);
      b.append(name.substring(3).toLowerCase());
      for (int v : a) b.append(' ').append(v);
      b.append('\n');
    }
    Field size = StandardTokenizerImpl.class.getDeclaredField("ZZ_BUFFERSIZE");
    size.setAccessible(true);
    b.append("buffer ").append(size.get(new StandardTokenizerImpl(new StringReader("")))).append('\n');
    System.out.print(b);
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "analyze";
    switch (mode) {
      case "analyze":
        run(language("en"));
        break;
      case "lang":
        run(language(args[1]));
        break;
      case "tokenize":
        run(tokenizerOnly());
        break;
      case "porter":
        run(porterOnly());
        break;
      case "tables":
        tables();
        break;
      case "version":
        System.out.println(org.apache.lucene.util.Version.LATEST);
        break;
      default:
        System.err.println("unknown mode " + mode + "; use analyze, tokenize, porter, lang L, tables or version");
        System.exit(2);
    }
  }
}
