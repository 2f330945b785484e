// The console's only script: keeps the operator token in this tab's session storage, copies it
// into an action form when it is submitted, and refreshes the run list in place every few seconds.
(function () {
  'use strict';
  var KEY = 'flows-ui-token';

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

  function start() {
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
