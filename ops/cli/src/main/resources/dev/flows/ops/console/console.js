// The console's only script: keeps the operator token in this tab's session storage, copies it
// into an action form when it is submitted, refreshes the run list in place every few seconds,
// adds the relative reading to each absolute time, and switches the light and dark themes.
(function () {
  'use strict';
  var KEY = 'flows-ui-token';
  var THEME = 'flows-ui-theme';

  function ago(iso) {
    var ms = Date.now() - Date.parse(iso);
    if (isNaN(ms)) {
      return '';
    }
    var s = Math.round(Math.abs(ms) / 1000);
    var text = s < 60 ? s + ' s' : s < 3600 ? Math.round(s / 60) + ' min'
      : s < 172800 ? Math.round(s / 3600) + ' h' : Math.round(s / 86400) + ' d';
    return ms >= 0 ? text + ' ago' : 'in ' + text;
  }

  function relativeTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (t) {
      if (!t.querySelector('small')) {
        var small = document.createElement('small');
        small.textContent = ago(t.getAttribute('datetime'));
        t.appendChild(small);
      }
    });
  }

  function themes() {
    var saved = window.localStorage.getItem(THEME);
    if (saved) {
      document.documentElement.setAttribute('data-theme', saved);
    }
    var button = document.getElementById('theme-toggle');
    if (!button) {
      return;
    }
    button.addEventListener('click', function () {
      var dark = document.documentElement.getAttribute('data-theme') === 'dark' ||
        (!document.documentElement.getAttribute('data-theme') &&
          window.matchMedia('(prefers-color-scheme: dark)').matches);
      var next = dark ? 'light' : 'dark';
      document.documentElement.setAttribute('data-theme', next);
      window.localStorage.setItem(THEME, next);
    });
  }

  function refresh(table, status) {
    fetch(window.location.href, { headers: { Accept: 'text/html' }, cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) {
          throw new Error('HTTP ' + r.status);
        }
        return r.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, 'text/html');
        var fresh = doc.querySelector('#runs tbody');
        if (fresh) {
          table.querySelector('tbody').replaceWith(document.adoptNode(fresh));
          relativeTimes(table);
        }
        var overview = doc.getElementById('overview');
        var shown = document.getElementById('overview');
        if (overview && shown) {
          shown.replaceWith(document.adoptNode(overview));
        }
        if (status) {
          status.textContent = 'updated ' + new Date().toLocaleTimeString();
        }
      })
      .catch(function (e) {
        if (status) {
          status.textContent = 'not reachable (' + e.message + '); retrying';
        }
      });
  }

  // A long run's timeline items past the first ones carry their detail's address, fetched once,
  // when the item is opened ('toggle' does not bubble: listened to while capturing).
  function lazyDetails() {
    document.addEventListener('toggle', function (e) {
      var item = e.target;
      if (!item.open || !item.hasAttribute || !item.hasAttribute('data-detail') ||
          item.hasAttribute('data-loaded')) {
        return;
      }
      item.setAttribute('data-loaded', '');
      fetch(item.getAttribute('data-detail'), { cache: 'no-store' })
        .then(function (r) {
          if (!r.ok) {
            throw new Error('HTTP ' + r.status);
          }
          return r.text();
        })
        .then(function (html) {
          var box = item.querySelector('.tl-detail');
          box.innerHTML = html;
          relativeTimes(box);
        })
        .catch(function (err) {
          item.removeAttribute('data-loaded');
          item.querySelector('.tl-detail').textContent = 'not loaded (' + err.message + ')';
        });
    }, true);
  }

  // A running run's model turns: their streamed text, polled from the run's live endpoint until
  // the run is not running (then the page's own refresh shows the journaled answers).
  function liveText() {
    var section = document.getElementById('live');
    if (!section) {
      return;
    }
    var box = document.getElementById('live-text');
    var timer = window.setInterval(function () {
      fetch(section.getAttribute('data-live-text'), { cache: 'no-store' })
        .then(function (r) {
          if (!r.ok) {
            throw new Error('HTTP ' + r.status);
          }
          return r.json();
        })
        .then(function (live) {
          if (!live.running) {
            window.clearInterval(timer);
          }
          if (live.turns.length === 0) {
            return;
          }
          box.replaceChildren();
          live.turns.forEach(function (turn) {
            var item = document.createElement('div');
            item.className = 'live-turn';
            item.setAttribute('data-step', turn.stepId);
            var label = document.createElement('h3');
            label.textContent = turn.label;
            var text = document.createElement('pre');
            text.textContent = turn.text;
            item.append(label, text);
            box.append(item);
          });
        })
        .catch(function (e) {
          box.setAttribute('data-error', e.message);
        });
    }, Number(section.getAttribute('data-every')) || 500);
  }

  function start() {
    themes();
    lazyDetails();
    liveText();
    relativeTimes(document);
    var token = document.getElementById('token');
    if (token) {
      token.value = window.sessionStorage.getItem(KEY) || '';
      token.addEventListener('input', function () {
        window.sessionStorage.setItem(KEY, token.value);
      });
    }
    document.querySelectorAll('form.action').forEach(function (form) {
      form.addEventListener('submit', function () {
        form.querySelector('input.token').value = token ? token.value : '';
      });
    });
    var table = document.querySelector('table[data-live]');
    if (table) {
      var status = document.getElementById('live-status');
      window.setInterval(function () {
        refresh(table, status);
      }, Number(table.getAttribute('data-live')) || 2000);
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
