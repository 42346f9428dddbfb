# App labels for adbwire's on-device dumper ('L' requests, README.md beside this file). An
# app_process tool has no Context, and labels come from PackageManager, which needs one: the
# system context of an ActivityThread made by reflection gives it (the way scrcpy's server lists
# apps with their labels from a shell-uid process). A class of its own so that a phone whose
# verifier rejected it would lose labels, never dumps.
.class final Lcom/adbwire/Labels;
.super Ljava/lang/Object;
.source "Labels.smali"

.field private static packageManager:Landroid/content/pm/PackageManager;

# The system context's PackageManager, made on the first call: a Looper for this thread (the
# ActivityThread's Handler needs one; the main Looper when none exists), `new ActivityThread()`
# made current (ActivityThread.sCurrentActivityThread), then its getSystemContext().
.method private static packageManager()Landroid/content/pm/PackageManager;
    .registers 7
    sget-object v0, Lcom/adbwire/Labels;->packageManager:Landroid/content/pm/PackageManager;
    if-eqz v0, :make
    return-object v0

    :make
    invoke-static {}, Landroid/os/Looper;->myLooper()Landroid/os/Looper;
    move-result-object v0
    if-nez v0, :have_looper
    invoke-static {}, Landroid/os/Looper;->getMainLooper()Landroid/os/Looper;
    move-result-object v0
    if-nez v0, :main_looper_taken
    invoke-static {}, Landroid/os/Looper;->prepareMainLooper()V
    goto :have_looper
    :main_looper_taken
    invoke-static {}, Landroid/os/Looper;->prepare()V
    :have_looper

    const-string v0, "android.app.ActivityThread"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const/4 v1, 0x0
    new-array v2, v1, [Ljava/lang/Class;
    new-array v5, v1, [Ljava/lang/Object;
    const/4 v4, 0x1
    invoke-virtual {v0, v2}, Ljava/lang/Class;->getDeclaredConstructor([Ljava/lang/Class;)Ljava/lang/reflect/Constructor;
    move-result-object v3
    invoke-virtual {v3, v4}, Ljava/lang/reflect/Constructor;->setAccessible(Z)V
    invoke-virtual {v3, v5}, Ljava/lang/reflect/Constructor;->newInstance([Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v3

    const-string v6, "sCurrentActivityThread"
    invoke-virtual {v0, v6}, Ljava/lang/Class;->getDeclaredField(Ljava/lang/String;)Ljava/lang/reflect/Field;
    move-result-object v6
    invoke-virtual {v6, v4}, Ljava/lang/reflect/Field;->setAccessible(Z)V
    const/4 v1, 0x0
    invoke-virtual {v6, v1, v3}, Ljava/lang/reflect/Field;->set(Ljava/lang/Object;Ljava/lang/Object;)V

    const-string v6, "getSystemContext"
    invoke-virtual {v0, v6, v2}, Ljava/lang/Class;->getDeclaredMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v6
    invoke-virtual {v6, v4}, Ljava/lang/reflect/Method;->setAccessible(Z)V
    invoke-virtual {v6, v3, v5}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    check-cast v0, Landroid/content/Context;
    invoke-virtual {v0}, Landroid/content/Context;->getPackageManager()Landroid/content/pm/PackageManager;
    move-result-object v0
    sput-object v0, Lcom/adbwire/Labels;->packageManager:Landroid/content/pm/PackageManager;
    return-object v0
.end method

# UTF-8 lines "package<TAB>label<LF>", one per installed app (getInstalledApplications(0), then
# PackageItemInfo.loadLabel, which falls back to the package name). Tabs, line feeds and
# carriage returns in a label become spaces so that a label cannot break the lines; a label
# that fails to load is left empty rather than failing the list.
.method static list()[B
    .registers 10
    invoke-static {}, Lcom/adbwire/Labels;->packageManager()Landroid/content/pm/PackageManager;
    move-result-object v0
    const/4 v1, 0x0
    invoke-virtual {v0, v1}, Landroid/content/pm/PackageManager;->getInstalledApplications(I)Ljava/util/List;
    move-result-object v1
    invoke-interface {v1}, Ljava/util/List;->size()I
    move-result v2
    new-instance v3, Ljava/lang/StringBuilder;
    invoke-direct {v3}, Ljava/lang/StringBuilder;-><init>()V
    const/4 v4, 0x0
    const/16 v8, 0x20

    :next
    if-ge v4, v2, :done
    invoke-interface {v1, v4}, Ljava/util/List;->get(I)Ljava/lang/Object;
    move-result-object v5
    check-cast v5, Landroid/content/pm/PackageItemInfo;
    iget-object v6, v5, Landroid/content/pm/PackageItemInfo;->packageName:Ljava/lang/String;
    invoke-virtual {v3, v6}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const/16 v6, 0x9
    invoke-virtual {v3, v6}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    const-string v6, ""
    :try_label_start
    invoke-virtual {v5, v0}, Landroid/content/pm/PackageItemInfo;->loadLabel(Landroid/content/pm/PackageManager;)Ljava/lang/CharSequence;
    move-result-object v7
    invoke-interface {v7}, Ljava/lang/CharSequence;->toString()Ljava/lang/String;
    move-result-object v6
    :try_label_end
    .catch Ljava/lang/Throwable; {:try_label_start .. :try_label_end} :label_done
    :label_done
    const/16 v7, 0x9
    invoke-virtual {v6, v7, v8}, Ljava/lang/String;->replace(CC)Ljava/lang/String;
    move-result-object v6
    const/16 v7, 0xa
    invoke-virtual {v6, v7, v8}, Ljava/lang/String;->replace(CC)Ljava/lang/String;
    move-result-object v6
    const/16 v7, 0xd
    invoke-virtual {v6, v7, v8}, Ljava/lang/String;->replace(CC)Ljava/lang/String;
    move-result-object v6
    invoke-virtual {v3, v6}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const/16 v6, 0xa
    invoke-virtual {v3, v6}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    add-int/lit8 v4, v4, 0x1
    goto :next

    :done
    invoke-virtual {v3}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v3
    const-string v4, "UTF-8"
    invoke-virtual {v3, v4}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v3
    return-object v3
.end method
