package io.stackreq.validation.oracle.workload;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Streams with method references and lambdas: JDK frames and synthetic lambda bodies between ours. */
public final class Streams {
    static long sink;

    private Streams() {
    }

    public static void round() {
        long sum = IntStream.range(0, 20_000).map(Streams::square).filter(x -> isOdd(x)).asLongStream().sum();
        List<String> words = IntStream.range(0, 2_000).mapToObj(Streams::word)
                .sorted(Comparator.comparing(Streams::key)).collect(Collectors.toList());
        sink += sum + words.size();
    }

    static int square(int x) {
        return x * x + spin(x);
    }

    static boolean isOdd(int x) {
        return (x & 1) == 1;
    }

    static String word(int i) {
        return Integer.toHexString(i * 0x9E3779B9);
    }

    static String key(String word) {
        return word.substring(word.length() / 2);
    }

    static int spin(int seed) {
        int acc = seed;
        for (int i = 0; i < 40; i++) {
            acc = acc * 31 + i;
        }
        return acc & 1;
    }
}
