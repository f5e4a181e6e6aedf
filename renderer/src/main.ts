import { createApp } from 'vue';
import { createPinia } from 'pinia';
import 'ol/ol.css';
import './style.css';
import App from './App.vue';
import { provideRpc } from './api/rpc';
import { pickTransport } from './api/transport';
import { createRpcClient } from '../../shared/rpc/client';

const app = createApp(App);
const { transport, link } = pickTransport();
provideRpc(app, createRpcClient(transport), link);
app.use(createPinia());
app.mount('#app');
