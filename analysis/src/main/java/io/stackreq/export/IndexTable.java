package io.stackreq.export;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Gives every distinct key of a profile's table (strings, functions, locations, stacks) its index,
 * adding the key's entry to the message the first time the key is seen.
 */
final class IndexTable<K> {
    private final Map<K, Integer> indices = new HashMap<>();
    private final int first;

    /** @param first the index of the first key added (pprof ids start at 1, its strings at 0) */
    IndexTable(int first) {
        this.first = first;
    }

    /** The key's index; a new key is first passed to {@code addEntry}, which may use other tables. */
    int indexOf(K key, Consumer<K> addEntry) {
        Integer known = indices.get(key);
        if (known != null) {
            return known;
        }
        addEntry.accept(key);
        int index = first + indices.size();
        indices.put(key, index);
        return index;
    }
}
