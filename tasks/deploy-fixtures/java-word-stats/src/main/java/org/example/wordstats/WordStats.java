package org.example.wordstats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.lang3.StringUtils;

/** Counts words and palindromes in a generated corpus (commons-lang3 does the string work). */
public final class WordStats {
  private static final String[] WORDS = {"level", "paper", "noon", "deploy", "radar", "build", "kayak"};

  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10000;
    Map<String, Integer> counts = new HashMap<>();
    int palindromes = 0;
    for (int i = 0; i < n; i++) {
      String word = StringUtils.capitalize(WORDS[(i * 7 + i / 3) % WORDS.length]);
      counts.merge(word, 1, Integer::sum);
      if (StringUtils.equalsIgnoreCase(word, StringUtils.reverse(word))) palindromes++;
    }
    String json = String.format("{\"words\": %d, \"distinct\": %d, \"palindromes\": %d}%n", n, counts.size(), palindromes);
    Files.write(Paths.get("results.json"), json.getBytes(StandardCharsets.UTF_8));
    System.out.printf("words=%d distinct=%d palindromes=%d%n", n, counts.size(), palindromes);
  }
}
