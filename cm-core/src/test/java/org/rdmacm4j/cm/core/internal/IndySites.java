package org.rdmacm4j.cm.core.internal;

import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.util.ArrayList;
import java.util.List;

/** The invokedynamic call sites of a class file, each with its method: for the tests that read compiled classes. */
final class IndySites {
    record Site(MethodModel method, InvokeDynamicInstruction indy) {
        /** The bootstrap method's class, as a descriptor ({@code Ljava/lang/invoke/LambdaMetafactory;}). */
        String bootstrapOwner() {
            return indy.bootstrapMethod().owner().descriptorString();
        }
    }

    private IndySites() { }

    static List<Site> of(ClassModel model) {
        List<Site> sites = new ArrayList<>();
        for (MethodModel m : model.methods()) {
            CodeModel code = m.code().orElse(null);
            if (code == null) {
                continue;
            }
            for (var element : code) {
                if (element instanceof InvokeDynamicInstruction indy) {
                    sites.add(new Site(m, indy));
                }
            }
        }
        return sites;
    }
}
