package org.rdmacm4j.verbs.internal;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableMap;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A C struct or union laid out by the x86-64 System V rules (each member at the next multiple of
 * its alignment, the size rounded up to the largest alignment), written by hand from the headers.
 *
 * <p>Why not plain {@link MemoryLayout#structLayout}: the padding would have to be written by hand
 * too, and every struct would need a second list of names for the conformance test. Here the
 * C member names are the single list: the test generates a C program from {@link #fields()} and
 * compares every offset and size with gcc's, so the two can never drift apart.
 *
 * <p>Immutable; any thread.
 */
public final class CStruct {

    /** One member, by its C designator ("wr.rdma.remote_addr" for nested members). */
    public record Field(String path, long offset, long size) { }

    private final String cName;
    private final long size;
    private final long alignment;
    private final ImmutableMap<String, Field> fields;
    private final MemoryLayout layout;
    // Made on first use, not here: withTargetLayout is restricted, and Layouts' structs are built
    // before anything checks that native access is enabled. A benign race (an immutable value).
    private AddressLayout pointerField;
    private AddressLayout returned;

    private CStruct(String cName, long size, long alignment, Map<String, Field> fields, MemoryLayout layout) {
        this.cName = cName;
        this.size = size;
        this.alignment = alignment;
        this.fields = ImmutableMap.copyOf(fields);   // keeps declaration order, unlike Map.copyOf
        this.layout = layout;
    }

    /** C type name, e.g. {@code struct ibv_wc}. */
    public String cName() { return cName; }

    /** sizeof. */
    public long size() { return size; }

    /** _Alignof. */
    public long alignment() { return alignment; }

    /** A layout of the right size and alignment (members not named: offsets come from {@link #offset}). */
    public MemoryLayout layout() { return layout; }

    /**
     * {@code T *} read from memory (a member, an out-parameter), unaligned as every field access
     * here: the segment it gives already has this struct's size. Why not {@code reinterpret(size())}
     * on each pointer: reinterpret is a restricted method, and every call of one walks the stack for
     * its caller's module (JVM_GetCallerClass), 1.8 % of the dispatcher's CPU in a warm connect +
     * close cycle under C1 (perf, 2026-11-27); {@code withTargetLayout} is restricted too, but runs
     * once per struct. The target is bytes (alignment 1): no alignment check of the address (the C
     * library's pointers are aligned anyway).
     */
    public AddressLayout pointerField() {
        AddressLayout p = pointerField;
        if (p == null) {
            pointerField = p = ValueLayout.ADDRESS_UNALIGNED.withTargetLayout(
                    MemoryLayout.sequenceLayout(size, ValueLayout.JAVA_BYTE));
        }
        return p;
    }

    /**
     * {@code T *} as a downcall's return type: the segment a constructor-like function returns
     * ({@code ibv_create_cq} and the like) already has this struct's size, so the binding need not
     * {@code reinterpret} it, a restricted method whose caller check walks the stack on every call
     * (issue 21: twice per connection for the queues librdmacm-style code makes). Aligned, unlike
     * {@link #pointerField()}: the linker takes only naturally aligned value layouts.
     */
    public AddressLayout returned() {
        AddressLayout p = returned;
        if (p == null) {
            returned = p = ValueLayout.ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(size, ValueLayout.JAVA_BYTE));
        }
        return p;
    }

    /**
     * {@code p} as this struct: as it is when already this size (read through
     * {@link #pointerField()}), else reinterpreted once (a pointer a function returned).
     */
    public MemorySegment view(MemorySegment p) {
        return p.byteSize() >= size ? p : p.reinterpret(size);
    }

    /**
     * The struct at {@code address} (a pointer read as a long), sized: a slice of
     * {@link Decode#ALL_MEMORY}, which is neither a pointer var handle read (a {@link #pointerField()}
     * read is an indirect VarHandle chain under C1) nor a restricted {@code reinterpret} (a stack walk
     * per call). Global scope, as a pointer read gives. Only for memory the libraries hand over.
     */
    public MemorySegment at(long address) {
        if (address == 0L) {   // a NULL pointer would be sized into a segment at address 0, not refused
            throw new IllegalArgumentException(cName + " at NULL");
        }
        return Decode.ALL_MEMORY.asSlice(address, size);
    }

    /** Every member (nested members flattened to C designators), in declaration order. */
    public List<Field> fields() { return fields.values().asList(); }

    /** offsetof(type, path); an unknown path is a programming error caught at class initialisation. */
    public long offset(String path) {
        Field f = fields.get(path);
        checkArgument(f != null, "%s has no member %s", cName, path);
        return f.offset();
    }

    public static Builder struct(String cName) { return new Builder(cName, false); }

    public static Builder union(String cName) { return new Builder(cName, true); }

    /** Builds members in declaration order. Not thread-safe; used in static initialisers. */
    public static final class Builder {
        private final String cName;
        private final boolean union;
        private final Map<String, Field> fields = new LinkedHashMap<>();
        private long cursor;
        private long maxSize;
        private long alignment = 1;

        private Builder(String cName, boolean union) {
            this.cName = cName;
            this.union = union;
        }

        private long place(long memberSize, long memberAlign) {
            alignment = Math.max(alignment, memberAlign);
            if (union) {
                maxSize = Math.max(maxSize, memberSize);
                return 0;
            }
            long at = align(cursor, memberAlign);
            cursor = at + memberSize;
            return at;
        }

        /** A scalar member. */
        public Builder field(String name, ValueLayout type) {
            long at = place(type.byteSize(), type.byteAlignment());
            put(new Field(name, at, type.byteSize()));
            return this;
        }

        /** An array member {@code type name[count]}. */
        public Builder array(String name, ValueLayout element, long count) {
            long at = place(element.byteSize() * count, element.byteAlignment());
            put(new Field(name, at, element.byteSize() * count));
            return this;
        }

        /** A named nested struct or union; its members become {@code name.member}. */
        public Builder field(String name, CStruct nested) {
            long at = place(nested.size, nested.alignment);
            put(new Field(name, at, nested.size));
            for (Field f : nested.fields.values()) {
                put(new Field(name + "." + f.path(), at + f.offset(), f.size()));
            }
            return this;
        }

        /** An anonymous struct or union member (C11): its members are reached without a prefix. */
        public Builder anonymous(CStruct nested) {
            long at = place(nested.size, nested.alignment);
            for (Field f : nested.fields.values()) {
                put(new Field(f.path(), at + f.offset(), f.size()));
            }
            return this;
        }

        /** Bytes the bindings never touch, kept as an opaque run with the given alignment. */
        public Builder opaque(String name, long byteSize, long byteAlignment) {
            long at = place(byteSize, byteAlignment);
            put(new Field(name, at, byteSize));
            return this;
        }

        private void put(Field f) {
            if (fields.putIfAbsent(f.path(), f) != null) {
                throw new IllegalStateException(cName + ": duplicate member " + f.path());
            }
        }

        public CStruct build() {
            long size = align(union ? maxSize : cursor, alignment);
            MemoryLayout layout = MemoryLayout.sequenceLayout(size / alignment, byteLayout(alignment))
                    .withName(cName);
            return new CStruct(cName, size, alignment, fields, layout);
        }
    }

    private static ValueLayout byteLayout(long alignment) {
        return switch ((int) alignment) {
            case 1 -> ValueLayout.JAVA_BYTE;
            case 2 -> ValueLayout.JAVA_SHORT;
            case 4 -> ValueLayout.JAVA_INT;
            case 8 -> ValueLayout.JAVA_LONG;
            default -> throw new IllegalArgumentException("alignment " + alignment);
        };
    }

    static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
