# Four register-type errors ART's verifier rejects, one a method, for the negative test of
# scripts/check-dex-registers (ctest dumper.register_types_catches_errors); never run or shipped.
# Each method name says its error; the test expects exactly these four and nothing else.
.class final Lcom/adbwire/test/BadRegisters;
.super Ljava/lang/Object;
.source "bad_registers.smali"

# v0 is never written before the call reads it.
.method private static uninitializedArgument()Ljava/lang/String;
    .registers 1
    invoke-static {v0}, Ljava/lang/String;->valueOf(Ljava/lang/Object;)Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method

# p0 is an int; valueOf(Object) takes a reference.
.method private static intAsObject(I)Ljava/lang/String;
    .registers 1
    invoke-static {p0}, Ljava/lang/String;->valueOf(Ljava/lang/Object;)Ljava/lang/String;
    move-result-object p0
    return-object p0
.end method

# The long is in v0/v1, but the call passes v0 and v2 for its J argument.
.method private static wideNotAPair()Ljava/lang/Long;
    .registers 3
    const-wide/16 v0, 0x5
    const/4 v2, 0x0
    invoke-static {v0, v2}, Ljava/lang/Long;->valueOf(J)Ljava/lang/Long;
    move-result-object v0
    return-object v0
.end method

# return-object of an int.
.method private static intReturnedAsObject(I)Ljava/lang/Object;
    .registers 1
    return-object p0
.end method
