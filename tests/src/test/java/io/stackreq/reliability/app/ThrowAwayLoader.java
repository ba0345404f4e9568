package io.stackreq.reliability.app;

import java.io.IOException;
import java.io.InputStream;

/**
 * Defines {@link DeoptVictim} and its nested classes itself (child first) from the class files of
 * its parent, so each loader has its own copies; everything else comes from the parent. Drop the
 * loader and the copies can be unloaded.
 */
final class ThrowAwayLoader extends ClassLoader {
    private static final String OWN = DeoptVictim.class.getName();

    ThrowAwayLoader(ClassLoader parent) {
        super("throw-away", parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.equals(OWN) && !name.startsWith(OWN + "$")) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                byte[] bytes;
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    bytes = in.readAllBytes();
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
                loaded = defineClass(name, bytes, 0, bytes.length);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    /** Loads a fresh DeoptVictim in a new loader and runs it. */
    static long runFreshVictim(long rounds) {
        try {
            ThrowAwayLoader loader = new ThrowAwayLoader(ThrowAwayLoader.class.getClassLoader());
            Class<?> victim = loader.loadClass(OWN);
            if (victim.getClassLoader() != loader) {
                throw new IllegalStateException("DeoptVictim was not defined by the throw-away loader");
            }
            java.util.function.LongUnaryOperator op =
                    (java.util.function.LongUnaryOperator) victim.getDeclaredConstructor().newInstance();
            return op.applyAsLong(rounds);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
