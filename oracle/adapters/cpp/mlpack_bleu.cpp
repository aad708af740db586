// A tiny driver for mlpack's BLEU (mlpack/core/metrics/bleu.hpp): reads one request from stdin, prints
// the score and mlpack's own statistics. Request: "MAXORDER SMOOTH SEGMENTS", then per segment a line
// "REFS", the hypothesis and each reference as "COUNT\ttok\ttok...". Output: "score translationLength
// referenceLength brevityPenalty p_1 ... p_N" with 17 significant digits.
#include <mlpack/core/metrics/bleu.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#ifndef BLEU_ELEM
#define BLEU_ELEM float
#endif

using Tokens = std::vector<std::string>;

static bool ReadTokens(std::istream& in, Tokens& out)
{
  std::string line;
  if (!std::getline(in, line)) return false;
  std::vector<std::string> fields;
  size_t start = 0;
  while (true)
  {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  size_t count = std::stoul(fields[0]);
  if (fields.size() != count + 1) return false;
  out.assign(fields.begin() + 1, fields.end());
  return true;
}

int main()
{
  size_t maxOrder, smooth, segments;
  std::string header;
  if (!std::getline(std::cin, header)) { std::cerr << "no request\n"; return 2; }
  std::istringstream(header) >> maxOrder >> smooth >> segments;
  std::vector<std::vector<Tokens>> references(segments);
  std::vector<Tokens> translations(segments);
  for (size_t s = 0; s < segments; ++s)
  {
    std::string refsLine;
    if (!std::getline(std::cin, refsLine)) { std::cerr << "truncated request\n"; return 2; }
    size_t refs = std::stoul(refsLine);
    if (!ReadTokens(std::cin, translations[s])) { std::cerr << "bad hypothesis line\n"; return 2; }
    references[s].resize(refs);
    for (size_t r = 0; r < refs; ++r)
      if (!ReadTokens(std::cin, references[s][r])) { std::cerr << "bad reference line\n"; return 2; }
  }
  mlpack::BLEU<BLEU_ELEM> bleu(maxOrder);
  const BLEU_ELEM score = bleu.Evaluate(references, translations, smooth != 0);
  std::printf("%.17g %zu %zu %.17g", (double) score, bleu.TranslationLength(), bleu.ReferenceLength(),
              (double) bleu.BrevityPenalty());
  for (const auto& p : bleu.Precisions()) std::printf(" %.17g", (double) p);
  std::printf("\n");
  return 0;
}
