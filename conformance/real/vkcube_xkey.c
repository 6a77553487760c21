/* vkcube_xkey: deterministic control of vkcube's frame for screenshots (conformance/real/vkcube_test.sh).
 *
 *   vkcube_xkey watch KEYCODE [TIMEOUT_S]  selects SubstructureNotify on the root window, prints
 *                                          "ready", waits for the first top-level window to be
 *                                          created, immediately sends it a KeyRelease of KEYCODE and
 *                                          prints the window id (0x...).
 *   vkcube_xkey send WINDOW KEYCODE        sends a KeyRelease of KEYCODE to WINDOW.
 *
 * vkcube toggles its pause on the release of keycode 65 (space). Sent the moment the window exists
 * (while vkcube still creates its device and swapchain), the key is already queued when vkcube's
 * event loop starts, so it pauses after drawing its first frame: the same picture for every loader.
 * Uses $DISPLAY through libxcb; no Vulkan.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xcb/xcb.h>

static int send_key(xcb_connection_t *c, xcb_window_t root, xcb_window_t w, unsigned keycode) {
  xcb_key_release_event_t ev;
  memset(&ev, 0, sizeof ev);
  ev.response_type = XCB_KEY_RELEASE;
  ev.detail = (xcb_keycode_t)keycode;
  ev.time = XCB_CURRENT_TIME;
  ev.root = root;
  ev.event = w;
  ev.child = XCB_NONE;
  ev.same_screen = 1;
  /* No event mask: delivered to the client that created the window. */
  xcb_void_cookie_t ck = xcb_send_event_checked(c, 0, w, 0, (const char *)&ev);
  xcb_generic_error_t *err = xcb_request_check(c, ck);
  if (err != NULL) {
    fprintf(stderr, "vkcube_xkey: SendEvent failed (X error %d)\n", err->error_code);
    free(err);
    return 1;
  }
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: vkcube_xkey watch KEYCODE [TIMEOUT_S] | vkcube_xkey send WINDOW KEYCODE\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage();
  int screen_index = 0;
  xcb_connection_t *c = xcb_connect(NULL, &screen_index);
  if (xcb_connection_has_error(c)) {
    fprintf(stderr, "vkcube_xkey: cannot connect to the X server\n");
    return 1;
  }
  xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(c));
  for (int i = 0; i < screen_index; ++i) xcb_screen_next(&it);
  xcb_window_t root = it.data->root;
  int rc = 0;
  if (strcmp(argv[1], "send") == 0 && argc == 4) {
    rc = send_key(c, root, (xcb_window_t)strtoul(argv[2], NULL, 0), (unsigned)strtoul(argv[3], NULL, 0));
  } else if (strcmp(argv[1], "watch") == 0) {
    unsigned keycode = (unsigned)strtoul(argv[2], NULL, 0);
    int timeout_s = argc > 3 ? atoi(argv[3]) : 60;
    uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY;
    xcb_generic_error_t *err =
        xcb_request_check(c, xcb_change_window_attributes_checked(c, root, XCB_CW_EVENT_MASK, &mask));
    if (err != NULL) {
      fprintf(stderr, "vkcube_xkey: cannot watch the root window (X error %d)\n", err->error_code);
      free(err);
      xcb_disconnect(c);
      return 1;
    }
    printf("ready\n");
    fflush(stdout);
    time_t end = time(NULL) + timeout_s;
    xcb_window_t found = XCB_NONE;
    while (found == XCB_NONE && time(NULL) < end) {
      xcb_generic_event_t *e = xcb_poll_for_event(c);
      if (e == NULL) {
        if (xcb_connection_has_error(c)) break;
        struct pollfd p = {.fd = xcb_get_file_descriptor(c), .events = POLLIN};
        (void)poll(&p, 1, 100);
        continue;
      }
      if ((e->response_type & 0x7f) == XCB_CREATE_NOTIFY) {
        const xcb_create_notify_event_t *cn = (const xcb_create_notify_event_t *)e;
        if (cn->parent == root) found = cn->window;
      }
      free(e);
    }
    if (found == XCB_NONE) {
      fprintf(stderr, "vkcube_xkey: no window created within %d s\n", timeout_s);
      rc = 1;
    } else {
      rc = send_key(c, root, found, keycode);
      printf("0x%x\n", (unsigned)found);
    }
  } else {
    rc = usage();
  }
  xcb_disconnect(c);
  return rc;
}
