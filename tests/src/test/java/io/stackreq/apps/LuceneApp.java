package io.stackreq.apps;

import java.util.List;
import java.util.SplittableRandom;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Lucene ({@code org.apache.lucene:lucene-core} 9.x): per round index 300 generated documents into a
 * fresh in-memory index, then answer 150 queries (term, boolean, phrase) and read the top hit's
 * stored field. One thread.
 */
final class LuceneApp extends App implements App.Worker {
    private static final int DOCS = 300;
    private static final int SEARCHES = 150;
    private final String[] vocabulary = new String[4000];
    private final SplittableRandom random = new SplittableRandom(7);
    private StandardAnalyzer analyzer;

    @Override public String name() { return "lucene"; }

    @Override public List<String> ownPackages() { return List.of("org.apache.lucene."); }

    @Override public Worker worker(int thread) { return this; }

    @Override public void setUp() {
        SplittableRandom words = new SplittableRandom(1);
        for (int i = 0; i < vocabulary.length; i++) {
            StringBuilder w = new StringBuilder();
            int length = 3 + words.nextInt(8);
            for (int c = 0; c < length; c++) w.append((char) ('a' + words.nextInt(26)));
            vocabulary[i] = w.toString();
        }
        analyzer = new StandardAnalyzer();
    }

    private String word() {
        // Roughly Zipf: small indexes are much more frequent.
        double u = random.nextDouble();
        return vocabulary[(int) (vocabulary.length * u * u * u)];
    }

    private String text(int words) {
        StringBuilder b = new StringBuilder(words * 8);
        for (int i = 0; i < words; i++) b.append(word()).append(i % 12 == 11 ? ". " : " ");
        return b.toString();
    }

    @Override public long round(int index) throws Exception {
        long hits = 0;
        try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(analyzer))) {
                for (int i = 0; i < DOCS; i++) {
                    Document doc = new Document();
                    doc.add(new StringField("id", index + "-" + i, Field.Store.YES));
                    doc.add(new TextField("title", text(8), Field.Store.YES));
                    doc.add(new TextField("body", text(120), Field.Store.NO));
                    writer.addDocument(doc);
                }
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                for (int i = 0; i < SEARCHES; i++) {
                    TopDocs top;
                    switch (i % 3) {
                        case 0:
                            top = searcher.search(new TermQuery(new Term("body", word())), 10);
                            break;
                        case 1:
                            top = searcher.search(new BooleanQuery.Builder()
                                    .add(new TermQuery(new Term("body", word())), BooleanClause.Occur.SHOULD)
                                    .add(new TermQuery(new Term("body", word())), BooleanClause.Occur.SHOULD)
                                    .add(new TermQuery(new Term("title", word())), BooleanClause.Occur.MUST_NOT)
                                    .build(), 10);
                            break;
                        default:
                            top = searcher.search(new PhraseQuery("body", word(), word()), 10);
                    }
                    hits += top.totalHits.value;
                    if (top.scoreDocs.length > 0) {
                        hits += searcher.storedFields().document(top.scoreDocs[0].doc).get("id").length();
                    }
                }
            }
        }
        return hits;
    }
}
